"""Build hooks; everything else is declared in pyproject.toml.

* The optional C accelerator of the ledger verifier. Without a compiler (or with one that
  fails) the install still succeeds: the verifier uses its pure-Python path, which gives
  the same verdicts, and the build says so in one calm line instead of a compiler error.
* The samples' generators (`sample_ledgers/make_*.py`) are source, kept in the sdist; the
  wheel carries the samples and the package's `__init__`, not the generators.
"""

from setuptools import Extension, errors, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

SAMPLES = "sealscope.sample_ledgers"


class OptionalBuildExt(build_ext):
    """An optional extension that does not compile is a one-line note, not a warning."""

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except (errors.CCompilerError, errors.BaseError, OSError) as e:
            if not ext.optional:
                raise
            print(
                f"note: {ext.name} not built ({type(e).__name__}); sealscope uses its "
                f"pure-Python verifier, which gives the same verdicts"
            )


class SamplesBuildPy(build_py):
    """`sealscope.sample_ledgers` ships its `__init__` and data, not the generators."""

    def find_package_modules(self, package, package_dir):
        modules = super().find_package_modules(package, package_dir)
        if package == SAMPLES:
            modules = [m for m in modules if m[1] == "__init__"]
        return modules


setup(
    ext_modules=[
        Extension(
            "sealscope.core._fastrow",
            ["core/_fastrow.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
        Extension(  # the row checks' line search (same lines found without it)
            "sealscope.core._marks",
            ["core/_marks.c"],
            optional=True,
            extra_compile_args=["-O2"],
        ),
    ],
    cmdclass={"build_ext": OptionalBuildExt, "build_py": SamplesBuildPy},
)
