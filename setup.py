"""Build hook for the optional C accelerator of the ledger verifier.

Everything else is declared in pyproject.toml. The extension is optional: without a
compiler the install still succeeds and the verifier uses its pure-Python path, which
gives the same verdicts.
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("sealscope.core._fastrow", ["core/_fastrow.c"], optional=True,
                             extra_compile_args=["-O2"])])
