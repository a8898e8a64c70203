"""Run independent calls on a Dask cluster (``barbu arena --cluster``): a local one or a scheduler's.

Dask rather than Ray: dask.distributed is pure Python and a small pip install, needs no daemon or
object store, starts a ``LocalCluster`` inside the calling process in about a second, and all a
user gives to reach a running cluster is its scheduler's address (``tcp://host:8786``).
"""

from __future__ import annotations

import importlib.metadata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

LOCAL = ""  # the address that asks for a LocalCluster started here
INSTALL = "pip install 'barbu[arena-cluster]'"


class ClusterError(Exception):
    """The cluster cannot be reached or used (its message says why and what to do)."""


def own_version() -> str:
    """This process's barbu version, as a worker would report it."""
    try:
        return importlib.metadata.version("barbu")
    except importlib.metadata.PackageNotFoundError:
        from barbu import __version__

        return __version__


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs dask.distributed: {INSTALL}") from None
    return distributed


@contextmanager
def client_for(address: str, workers: int, timeout: float) -> Iterator[Any]:
    """A Dask client: on a LocalCluster of ``workers`` one-thread processes when ``address`` is
    LOCAL, else connected to the scheduler at ``address`` within ``timeout`` seconds."""
    dd = _distributed()
    if address == LOCAL:
        with dd.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                             dashboard_address=None) as local, dd.Client(local) as client:
            yield client
        return
    try:
        client = dd.Client(address, timeout=timeout)
    except (OSError, ValueError) as e:  # a refused or timed-out connection, or a malformed address
        raise ClusterError(f"cannot reach a Dask scheduler at {address!r} within {timeout:g} s: "
                           f"{e}") from None
    with client:
        yield client


def check_workers(client: Any, timeout: float) -> None:
    """Refuse a cluster without workers, or one whose workers run another barbu (or none)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except TimeoutError:
        raise ClusterError(f"the Dask cluster has no worker after {timeout:g} s") from None
    # A stdlib function is pickled by reference, so it runs even where barbu is missing.
    found = client.run(importlib.metadata.version, "barbu", on_error="return")
    want = own_version()
    wrong = {w: v for w, v in found.items() if v != want}
    if wrong:
        worker, got = sorted(wrong.items())[0]
        have = "no barbu installed" if isinstance(got, Exception) else f"barbu {got}"
        raise ClusterError(f"Dask worker {worker} has {have} but this machine has barbu {want} "
                           f"({len(wrong)} of {len(found)} workers differ): install barbu {want} on "
                           "every worker")


def run_calls(address: str, workers: int, timeout: float, fn: Callable[..., Any],
              calls: Sequence[tuple[Any, ...]]) -> Iterator[tuple[int, Any]]:
    """``fn(*call)`` for every call on the cluster; yields (index of the call, result) as each
    finishes, so the caller decides the order it sums in. A failed call raises its error here."""
    dd = _distributed()
    with client_for(address, workers, timeout) as client:
        check_workers(client, timeout)
        # pure=False: two equal calls are still two runs (a bot's randomness may matter).
        futures = [client.submit(fn, *call, pure=False) for call in calls]
        index = {f.key: i for i, f in enumerate(futures)}
        try:
            for fut in dd.as_completed(futures):
                yield index[fut.key], fut.result()
        finally:
            client.cancel(futures)
