"""Where a fleet's ledgers come from (local paths or fsspec URLs: listing, fetching)
and the Dask adapter of `core.fleet_run`, which plans and runs them on the local
process pool or (`DaskExecutor`) a Dask cluster.

fsspec (with s3fs for `s3://`) and dask.distributed are optional (`pip install
"sealscope[fleet]"`); without them local sources on the local pool still work, and
asking for a URL or `--scheduler` says what to install. Workers open remote objects
themselves: a task carries URLs and `storage_options`, never file bytes. A listing or
read error for one object is that object's could-not-look entry, never the end of a run.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pickle
import posixpath
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from fnmatch import fnmatchcase
from functools import partial
from typing import Any

from sealscope.core import fleet, fleet_run
from sealscope.core.checks.result import CheckContext
from sealscope.core.fleet import FleetEntry

FLEET_EXTRA = 'pip install "sealscope[fleet]"'


class EngineMissing(RuntimeError):
    """An optional engine (fsspec, s3fs, dask.distributed) is not installed."""


class ClusterUnavailable(RuntimeError):
    """The Dask cluster asked for could not be started or reached (one line)."""


def is_url(source: str) -> bool:
    return "://" in source


def _fsspec() -> Any:
    try:
        import fsspec  # type: ignore[import-untyped]
    except ImportError:
        raise EngineMissing(f"reading URLs needs fsspec: {FLEET_EXTRA}") from None
    return fsspec


def _url_to_fs(url: str, options: dict[str, Any]) -> tuple[Any, str]:
    fsspec = _fsspec()
    try:
        return fsspec.core.url_to_fs(url, **options)
    except ImportError as e:  # the protocol's own package, e.g. s3fs
        raise EngineMissing(
            f"{url.split('://')[0]}:// needs {e.name or 'its fsspec backend'}: {FLEET_EXTRA}"
        ) from None


def _object_fs(url: str, options: dict[str, Any]) -> tuple[Any, str]:
    """The filesystem and path of one object URL. fsspec reads `::` as a chain of URLs
    (`zip://x::s3://b/a.zip`); an S3 key may hold `::` itself (`s3://b/a::b.jsonl`), so
    a URL whose only `::` come after its `://` with no second protocol is one object
    of one filesystem, opened as such."""
    proto, sep, rest = url.partition("://")
    if sep and "::" in rest and "://" not in rest and "::" not in proto:
        fsspec = _fsspec()
        try:
            fs = fsspec.filesystem(proto, **options)
        except ImportError as e:
            raise EngineMissing(
                f"{proto}:// needs {e.name or 'its fsspec backend'}: {FLEET_EXTRA}"
            ) from None
        # strip the protocol as the filesystem does, with `::` held out of its sight
        return fs, fs._strip_protocol(url.replace("::", "\0\0")).replace("\0\0", "::")
    return _url_to_fs(url, options)


# A remote object is copied to a private temporary file to be verified; beyond this
# many bytes the copy stops and the object is COULD NOT LOOK (no disk is filled).
REMOTE_MAX_BYTES = 16 << 30


def error_text(e: BaseException) -> str:
    """An error as one line: the OS's rendering when there is one, else type: message."""
    if isinstance(e, OSError) and e.strerror:
        return str(e)
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def list_remote(
    url: str, pattern: str, options: dict[str, Any]
) -> Iterator[tuple[str, int | None, str | None]]:
    """(url, size, listing error) for each object under `url` matching `pattern` (or
    `url` itself when it names an object)."""
    try:
        fs, root = _object_fs(url, options)
        info = fs.info(root)
    except EngineMissing:
        raise
    except Exception as e:  # noqa: BLE001 - any backend's error is this source's verdict
        yield url, None, error_text(e)
        return
    if info.get("type") != "directory":
        yield url, info.get("size"), None
        return
    try:
        found = fs.find(root, detail=True)
    except Exception as e:  # noqa: BLE001
        yield url, None, error_text(e)
        return
    for path in sorted(found):
        if fnmatchcase(posixpath.basename(path), pattern):
            yield fs.unstrip_protocol(path), found[path].get("size"), None


def audit_url(
    url: str, options: dict[str, Any], strict: bool = False, ctx: CheckContext | None = None
) -> FleetEntry:
    """Fetch one object to a private temporary file (streamed, at most
    REMOTE_MAX_BYTES), audit it, delete the copy."""
    tmpdir = tempfile.mkdtemp(prefix="sealscope-fleet-")
    try:
        local = os.path.join(tmpdir, "ledger.jsonl")
        try:
            fs, path = _object_fs(url, options)
            copied = 0
            with fs.open(path, "rb") as src, open(local, "wb") as dst:
                while block := src.read(1 << 20):
                    copied += len(block)
                    if copied > REMOTE_MAX_BYTES:
                        return fleet.unreadable_entry(
                            url,
                            f"larger than {REMOTE_MAX_BYTES >> 30} GiB: not fetched "
                            "(a remote object is copied to be verified)",
                        )
                    dst.write(block)
        except EngineMissing as e:
            return fleet.unreadable_entry(url, str(e))
        except Exception as e:  # noqa: BLE001 - any backend's error is this object's verdict
            return fleet.unreadable_entry(url, error_text(e))
        return fleet.audit_file(local, strict=strict, display=url, ctx=ctx)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


def audit_items(
    items: Sequence[str],
    options: dict[str, Any],
    strict: bool = False,
    incremental: bool = False,
    ctx: CheckContext | None = None,
    digest: bool = True,
) -> list[dict[str, Any]]:
    """A batch of local paths and URLs, audited in order; wire dicts for any executor.
    Checkpoints (`incremental`) apply to local paths; a remote object is fetched whole.
    `ctx`: what the run holds (`fleet.fleet_context`)."""
    return [
        (
            audit_url(i, options, strict, ctx)
            if is_url(i)
            else fleet.audit_path(i, strict=strict, incremental=incremental, ctx=ctx, digest=digest)
        ).to_wire()
        for i in items
    ]


def gather(
    sources: Sequence[str],
    pattern: str,
    options: dict[str, Any],
    follow_links: bool = False,
    kinds: bool = False,
    on_many: Callable[[], None] | None = None,
) -> tuple[list[tuple[str, int | None]], list[FleetEntry]]:
    """(ledgers to audit with their sizes, entries already decided by a listing error,
    or by a symlink out of its folder not followed: COULD NOT LOOK, saying so).
    `on_many()` is called once, as soon as the local walk has found `MANY_FILES`
    (enough for a pool: the CLI starts its workers then, while the walk goes on)."""
    sized: list[tuple[str, int | None]] = []
    failed: list[FleetEntry] = []
    local = [s for s in sources if not is_url(s)]
    skipped: list[tuple[str, str]] = []
    for k, found in enumerate(
        fleet.walk(local, pattern, follow_links=follow_links, skipped=skipped, kinds=kinds), 1
    ):
        sized.append(found)
        if k == MANY_FILES and on_many is not None:
            on_many()
    failed.extend(fleet.unreadable_entry(p, why) for p, why in skipped)
    for url in (s for s in sources if is_url(s)):
        for item, size, err in list_remote(url, pattern, options):
            if err is None:
                sized.append((item, size))
            else:
                failed.append(fleet.unreadable_entry(item, err))
    return sized, failed


# files enough for at least two batches (`fleet_run.BATCH_FILES` each): a pool will run
MANY_FILES = 2 * fleet_run.BATCH_FILES

# --------------------------------------------------------------------------- executors

OnEntry = Callable[[FleetEntry], None]


def _on_pool(
    plan: fleet_run.Plan,
    options: dict[str, Any],
    strict: bool,
    on_entry: OnEntry,
    executor: fleet_run.Executor,
    incremental: bool = False,
    large_first: bool = False,
    ctx: CheckContext | None = None,
) -> None:
    task = partial(audit_items, options=options, strict=strict, incremental=incremental, ctx=ctx)
    for _item, wire in fleet_run.run(plan, task, executor, large_first=large_first):
        on_entry(FleetEntry.from_dict(wire))


def run_pool(
    sized: Sequence[tuple[str, int | None]],
    options: dict[str, Any],
    strict: bool,
    on_entry: OnEntry,
    incremental: bool = False,
    artefacts: str | None = None,
    digest: bool = True,
) -> None:
    """The local process pool (`fleet_run.LocalPool`): local files as `fleet.run_local`
    runs them (a large one here, split across the cores); URLs in batches on the same
    pool, a large object a task of its own (its worker fetches it). Every one judged
    with what the run holds (`fleet.fleet_context`: its stored verdicts, `artefacts`)."""
    local = [(p, n) for p, n in sized if not is_url(p)]
    remote = [(p, n) for p, n in sized if is_url(p)]
    ctx = fleet.fleet_context(local, artefacts) if remote else None
    fleet.run_local(
        local,
        strict=strict,
        incremental=incremental,
        on_entry=on_entry,
        artefacts=artefacts,
        digest=digest,
    )
    if remote:
        _on_pool(
            fleet_run.plan_batches(remote),
            options,
            strict,
            on_entry,
            fleet_run.LocalPool(),
            ctx=ctx,
        )


def _distributed() -> tuple[Any, Any]:
    try:
        import dask
        import dask.distributed as dd
    except ImportError:
        raise EngineMissing(f"--scheduler needs dask.distributed: {FLEET_EXTRA}") from None
    return dask, dd


def _start_method() -> str:
    """How `local:N` starts its workers: from a fork server where the platform has one
    (a clean single-threaded process that loaded distributed once), else spawned."""
    import multiprocessing as mp

    return "forkserver" if "forkserver" in mp.get_all_start_methods() else "spawn"


def local_cluster_config() -> dict[str, Any]:
    """Dask settings for the workers `local:N` starts. Audits are CPU-bound tasks whose
    worker threads hold the GIL, so the workers skip what would wake up beside them:
    the statistical profiler (a stack sample every 10 ms that no one reads here), the
    GIL-contention monitor and the event-loop tick watch (1 s, not 20 ms), and the
    worker's and its nanny's memory checks run once a second, not ten times (an audit
    holds its files' bytes, not a growing store, so the limit is still kept). Workers
    start by `_start_method`, with Dask's environment for them but for
    MALLOC_TRIM_THRESHOLD_: set, it fixes glibc's mmap threshold at 128 kB, so every
    file read whole would be mapped afresh and fault in page by page, a third more CPU
    per audit (the workers live for one run; what they free is reused)."""
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", default={}) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return {
        "distributed.worker.profile.enabled": False,
        "distributed.admin.system-monitor.gil.enabled": False,
        "distributed.admin.system-monitor.interval": "1s",
        "distributed.admin.tick.interval": "1s",
        "distributed.worker.memory.monitor-interval": "1s",
        "distributed.worker.multiprocessing-method": _start_method(),
        "distributed.nanny.pre-spawn-environ": environ,
    }


def prepare_dask(scheduler: str) -> None:
    """Start what a Dask run waits for while the sources are listed. For `local:N`
    where workers start from a fork server, that server first, loading distributed
    and the audit code in its own process (on another core) so the workers fork
    ready; then, in a thread, the client's import of dask.distributed and the cluster
    itself (`_Connecting`: started for `local:N`, else connected to), which the next
    `run_dask` for `scheduler` takes. Without dask nothing starts: `run_dask` says
    what to install."""
    if importlib.util.find_spec("distributed") is None:
        return
    if is_local(scheduler) and _start_method() == "forkserver":
        from multiprocessing import forkserver

        forkserver.set_forkserver_preload(["distributed", __name__])
        forkserver.ensure_running()
    _discard_prepared()
    _prepared.append(_Connecting(scheduler))


def discard_started() -> None:
    """Close what was started for a run that will not come (the caller stops): the
    pool's workers (`fleet_run.prestart`) and a Dask client (`prepare_dask`)."""
    fleet_run.discard_started()
    _discard_prepared()


def _discard_prepared() -> None:
    while _prepared:
        _prepared.pop().close()


class _Connecting:
    """A Dask client for `scheduler` being made in a thread: `local:N` starts a
    LocalCluster of N worker processes on 127.0.0.1; anything else is an address."""

    def __init__(self, scheduler: str) -> None:
        import threading

        self.scheduler = scheduler
        self.local = is_local(scheduler)
        self.client: Any = None
        self.cluster: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._connect, daemon=True, name="dask-connect")
        self.thread.start()

    def _connect(self) -> None:
        try:
            dask, dd = _distributed()
            if self.local:
                with dask.config.set(local_cluster_config()):
                    self.cluster = dd.LocalCluster(
                        n_workers=local_workers(self.scheduler),
                        threads_per_worker=1,
                        processes=True,
                        host="127.0.0.1",
                        dashboard_address=None,
                    )
            self.client = dd.Client(self.cluster or self.scheduler)
        except BaseException as e:  # noqa: BLE001 - raised where the run takes it
            self.error = e

    def take(self) -> tuple[Any, Any]:
        """(client, cluster or None), once made. What stopped it is raised: a missing
        engine as itself, anything else as `ClusterUnavailable` saying what failed."""
        self.thread.join()
        error = self.error
        if error is None:
            return self.client, self.cluster
        self.close()
        if isinstance(error, EngineMissing):
            raise error
        what = "could not be started" if self.local else "could not be reached"
        raise ClusterUnavailable(
            f"--scheduler {self.scheduler}: the cluster {what}: {error_text(error)}"
        ) from error

    def close(self) -> None:
        """Close the client and the cluster started for it (once made; closing again
        does nothing)."""
        self.thread.join()
        for held in (self.client, self.cluster):
            if held is not None:
                try:
                    held.close()
                except Exception:  # noqa: BLE001 - closing what failed to start
                    pass


_prepared: list[_Connecting] = []  # from `prepare_dask`, not yet taken


def _take_prepared(scheduler: str) -> _Connecting:
    """The client `prepare_dask` is making for `scheduler`, else one made now; one
    prepared for another scheduler is closed (a run never leaves one behind)."""
    taken = next((c for c in _prepared if c.scheduler == scheduler), None)
    if taken is not None:
        _prepared.remove(taken)
    _discard_prepared()
    return taken or _Connecting(scheduler)


def is_local(scheduler: str) -> bool:
    """Whether `scheduler` asks for a LocalCluster started here (`local:N`)."""
    return scheduler.startswith("local:")


def local_workers(scheduler: str) -> int:
    """N of `local:N` (`local:` alone: one per core)."""
    return int(scheduler.split(":", 1)[1] or 0) or (os.cpu_count() or 1)


def worker_threads(client: Any) -> int:
    """How many tasks the cluster behind `client` runs at once (its workers' threads
    now; at least 1, for a cluster whose workers have not joined yet)."""
    try:
        workers = client.scheduler_info().get("workers", {})
        threads = sum(int(w.get("nthreads", 1)) for w in workers.values())
    except Exception:  # noqa: BLE001 - a plan for one thread is still a right plan
        threads = 0
    return max(1, threads)


def packed(task: Callable[[Sequence[str]], list[Any]], batch: Sequence[str]) -> bytes | None:
    """`task(batch)` as one pickled blob. Dask's serializers look into every entry of
    a list result, on the worker and again on the client; one `bytes` crosses as a
    single frame, and the client unpickles it in one call. None when the results nest
    too deeply to pickle (evidence nested near the parser's limit): the client runs
    that batch itself."""
    results = task(batch)
    try:
        return pickle.dumps(results, protocol=pickle.HIGHEST_PROTOCOL)
    except RecursionError:
        return None


class DaskExecutor:
    """The Dask adapter of `fleet_run.Executor`: one task per batch on `client`, its
    results returned `packed`, streamed back with `as_completed`."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def map_batches(
        self, task: Callable[[Sequence[str]], list[Any]], batches: Sequence[Sequence[str]]
    ) -> Iterator[tuple[int, list[Any]]]:
        _dask, dd = _distributed()
        futures = self.client.map(partial(packed, task), list(batches), pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in dd.as_completed(futures):
            # the cluster's own workers ran our task: Dask unpickles their results too
            i, blob = index[fut.key], fut.result()
            yield i, task(batches[i]) if blob is None else pickle.loads(blob)


def run_dask(
    sized: Sequence[tuple[str, int | None]],
    options: dict[str, Any],
    strict: bool,
    on_entry: OnEntry,
    scheduler: str,
    incremental: bool = False,
    artefacts: str | None = None,
    digest: bool = True,
) -> None:
    """The fleet on a Dask cluster (`DaskExecutor`): every file a task of
    `fleet_run.cluster_plan` for the cluster's worker threads, a large file a task of
    its own, the longest first, so the run ends on small ones and no worker idles
    long while another finishes a big file (Dask runs tasks about in the order
    given). `scheduler` is an address, or `local:N` for a LocalCluster of N worker
    processes on 127.0.0.1, closed at the end."""
    connecting = _take_prepared(scheduler)
    client, cluster = connecting.take()
    slots = local_workers(scheduler) if cluster is not None else worker_threads(client)
    executor = DaskExecutor(client)

    def audit(items: Sequence[tuple[str, int | None]], ctx: CheckContext) -> Iterator[FleetEntry]:
        task = partial(
            audit_items,
            options=options,
            strict=strict,
            incremental=incremental,
            ctx=ctx,
            digest=digest,
        )
        plan = fleet_run.cluster_plan(items, slots)
        for _item, wire in fleet_run.run(plan, task, executor, large_first=True):
            yield FleetEntry.from_dict(wire)

    try:  # what the run holds: `fleet.iter_held`, as the local pool holds it
        for entry in fleet.iter_held(sized, audit, artefacts):
            on_entry(entry)
    finally:
        connecting.close()
