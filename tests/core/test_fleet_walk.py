"""The fleet's walk (`core.fleet_walk`): which files a fleet audits and in what order,
on a real tree holding packs, bundles, symlinks in and out, a symlinked folder and
case-folded marks; each folder listed exactly once; the same answer when listings of
subfolders are not kept."""

from __future__ import annotations

import os
from collections import Counter

import pytest
from sealscope.core import fleet, fleet_walk


def _touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def tree(tmp_path):
    t = tmp_path / "t"
    _touch(t / "b" / "z.jsonl")
    _touch(t / "b" / "deep" / "er" / "y.jsonl")
    _touch(t / "a.jsonl")
    _touch(t / "notes.txt")
    _touch(t / "doc.json", "{}")
    _touch(t / "pack" / "manifest.sha256", "x")  # an evidence pack: one path
    _touch(t / "pack" / "inner.jsonl")
    _touch(t / "bundle" / "records.jsonl")  # an audit bundle: one path
    _touch(t / "Upper" / "Manifest.JSON", "{}")  # a mark, but no pack: walked into
    _touch(t / "Upper" / "u.jsonl")
    _touch(tmp_path / "outside.jsonl")
    (t / "out.jsonl").symlink_to(tmp_path / "outside.jsonl")
    (t / "in.jsonl").symlink_to(t / "a.jsonl")
    (t / "gone.jsonl").symlink_to(t / "nothing")
    (t / "linked").symlink_to(t / "b", target_is_directory=True)
    return t


def _names(found, root):
    return [(os.path.relpath(p, root), n) for p, n in found]


def test_the_walk_finds_each_file_once_in_order(tree):
    skipped: list[tuple[str, str]] = []
    got = _names(fleet.walk([str(tree)], skipped=skipped), tree)
    assert got == [
        ("a.jsonl", 0),
        ("bundle", None),
        ("doc.json", 2),
        ("gone.jsonl", None),
        ("in.jsonl", 0),
        ("notes.txt", 0),  # every file: the classifier, not its name, decides
        ("pack", None),
        ("Upper/Manifest.JSON", 2),
        ("Upper/u.jsonl", 0),
        ("b/z.jsonl", 0),
        ("b/deep/er/y.jsonl", 0),
    ]
    assert [os.path.basename(p) for p, _why in skipped] == ["out.jsonl"]
    plain = _names(fleet.walk([str(tree)], kinds=False), tree)
    assert [p for p, _n in plain] == [
        "a.jsonl",
        "gone.jsonl",
        "in.jsonl",
        "Upper/u.jsonl",
        "b/z.jsonl",
        "b/deep/er/y.jsonl",
        "bundle/records.jsonl",
        "pack/inner.jsonl",
    ]
    followed = dict(_names(fleet.walk([str(tree)], follow_links=True), tree))
    assert followed["out.jsonl"] == 0 and "linked/z.jsonl" not in followed


def test_sources_named_are_taken_as_given(tree, tmp_path):
    got = _names(
        fleet.walk([str(tree / "pack"), str(tree / "a.jsonl"), str(tmp_path / "missing")]),
        tmp_path,
    )
    assert got == [("t/pack", None), ("t/a.jsonl", 0), ("missing", None)]


def test_each_folder_is_listed_once(tree, monkeypatch):
    listed: Counter[str] = Counter()
    scandir = os.scandir

    def counting(path="."):
        listed[os.path.relpath(os.fspath(path), tree)] += 1
        return scandir(path)

    def no_listdir(path="."):
        raise AssertionError(f"listed again: {path}")

    monkeypatch.setattr(os, "scandir", counting)
    monkeypatch.setattr(os, "listdir", no_listdir)
    assert len(list(fleet.walk([str(tree)]))) == 11
    assert set(listed.values()) == {1}
    # every real folder once (the symlinked one never); a pack's marks send it to
    # the classifier, which looks at its files by name
    assert sorted(listed) == [".", "Upper", "b", "b/deep", "b/deep/er", "bundle", "pack"]


def test_listings_not_kept_give_the_same_walk(tree, monkeypatch):
    kept = list(fleet.walk([str(tree)]))
    monkeypatch.setattr(fleet_walk, "LISTINGS_KEPT", 0)
    assert list(fleet.walk([str(tree)])) == kept


def test_a_deep_tree_is_walked_without_recursion(tmp_path):
    deep = str(tmp_path / "deep")
    folders = []
    for _ in range(1200):  # deeper than the recursion limit
        deep = os.path.join(deep, "d") if folders else deep
        os.mkdir(deep)
        folders.append(deep)
    leaf = os.path.join(deep, "x.jsonl")
    open(leaf, "w").close()
    try:
        (p, n), *rest = fleet.walk([folders[0]])
        assert p == leaf and n == 0 and rest == []
    finally:  # removed here: a tree this deep is past a recursive cleanup too
        os.unlink(leaf)
        for folder in reversed(folders):
            os.rmdir(folder)
