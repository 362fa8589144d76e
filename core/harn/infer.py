"""How many messages a harn compaction removed, read from the content alone, never
from the claim.

`infer_archive` aligns the snapshot's messages with the following ones under harn's
rule (the longest common prefix is the kept prefix; the summary follows; then the
earliest suffix of the snapshot that reappears right after the summary is the kept
suffix). A kept `tool` message may differ in `content` only (harn clamps oversized tool
output); any other kept message whose bytes changed breaks the alignment, so the suffix
it sat in counts as gone (reported, conservatively, as more archived than claimed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sealscope.core import digest as _digest
from sealscope.core.harn.model import ArchiveInference

__all__ = ["infer_archive"]

_NOMATCH = object()


def _key(item: Any) -> Any:
    try:
        return _digest.item_digest(item).digest
    except (ValueError, RecursionError):
        return object()  # never equal to anything else


def _rewrite_key(item: Any) -> Any:
    """A kept tool message whose content harn may rewrite: the message minus content."""
    if isinstance(item, dict) and item.get("role") == "tool" and "content" in item:
        return _key({k: v for k, v in item.items() if k != "content"})
    return _NOMATCH


def infer_archive(
    pre: Sequence[Any], post: Sequence[Any], *, budget: int = 4_000_000
) -> ArchiveInference | None:
    """How `post` was made from `pre` under harn's rule `pre[:p] + [summary] +
    pre[s:]` (+ appended): the longest common prefix `p`, then the earliest `s` whose
    suffix `pre[s:]` appears right after the summary (a kept tool message may differ in
    content only). None when the comparison budget runs out."""
    ks = [_key(x) for x in pre]
    kf = [_key(x) for x in post]
    n, m = len(ks), len(kf)
    p = 0
    while p < n and p < m and ks[p] == kf[p]:
        p += 1
    if p == n:
        return ArchiveInference(p, 0, 0, 0, m - p, False)
    if p == m:
        return ArchiveInference(p, n - p, 0, 0, 0, False)
    tail = kf[p + 1 :]
    rk_pre: dict[int, Any] = {}
    rk_post: dict[int, Any] = {}

    def same(i: int, j: int) -> tuple[bool, bool]:
        if ks[i] == tail[j]:
            return True, False
        a = rk_pre.get(i)
        if a is None:
            a = rk_pre[i] = _rewrite_key(pre[i])
        if a is _NOMATCH:
            return False, False
        b = rk_post.get(j)
        if b is None:
            b = rk_post[j] = _rewrite_key(post[p + 1 + j])
        return (a == b, True) if b is not _NOMATCH else (False, False)

    spent = 0
    for s in range(p, n + 1):
        k = n - s
        if k > len(tail):
            continue
        rewritten = 0
        ok = True
        for i in range(k):
            spent += 1
            hit, rew = same(s + i, i)
            if not hit:
                ok = False
                break
            rewritten += rew
        if spent > budget:
            return None
        if ok:
            return ArchiveInference(p, s - p, k, rewritten, len(tail) - k, True)
    return None  # unreachable: s == n always matches
