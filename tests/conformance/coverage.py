#!/usr/bin/env python3
"""List LangGraph tests that tests/ neither ports nor lists in NOT_PORTED*.md.

Usage: python3 tests/conformance/coverage.py MIRROR [TEST_FILE.py ...] [--summary]

MIRROR is LangGraph's git directory (e.g. /work/.mirror/langchain-ai+langgraph/repo,
read at HEAD) or a checkout of it. Without TEST_FILE arguments every
libs/langgraph/tests/test_*.py is checked. A test counts as covered when a
C++ source under tests/ names `file.py::test_name` (or `file.py::Class::test_name`)
or a NOT_PORTED*.md line starts with `- file.py::test_name`.
Prints one `file.py::test_name` per uncovered test, then a per-file count, then
the tests both ported (named by a case's `// libs/langgraph/tests/...` comment)
and listed in NOT_PORTED (other than "ported, fails"); exits 1 when any test
is uncovered.
"""
import ast
import os
import re
import subprocess
import sys

TESTS_DIR = "libs/langgraph/tests"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO_TESTS = os.path.dirname(HERE)


def read_mirror(mirror, rel):
    if os.path.isdir(os.path.join(mirror, rel.split("/")[0])):
        with open(os.path.join(mirror, rel), encoding="utf-8") as f:
            return f.read()
    return subprocess.run(["git", "--git-dir", mirror, "show", "HEAD:" + rel],
                          check=True, capture_output=True, text=True).stdout


def list_mirror(mirror):
    if os.path.isdir(os.path.join(mirror, TESTS_DIR)):
        names = os.listdir(os.path.join(mirror, TESTS_DIR))
    else:
        out = subprocess.run(["git", "--git-dir", mirror, "ls-tree", "--name-only",
                              "HEAD", TESTS_DIR + "/"],
                             check=True, capture_output=True, text=True).stdout
        names = [os.path.basename(n) for n in out.split()]
    return sorted(n for n in names if n.startswith("test_") and n.endswith(".py"))


def test_names(source):
    """Module-level test functions and Test* class methods, in file order."""
    tree = ast.parse(source)
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                and node.name.startswith("test_"):
            names.append(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            for sub in node.body:
                if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                        and sub.name.startswith("test_"):
                    names.append(node.name + "::" + sub.name)
    return names


def covered_refs(split=False):
    refs = set()
    cases, listed = set(), set()
    pat = re.compile(r"(test_[A-Za-z0-9_]+\.py)::((?:[A-Za-z_][A-Za-z0-9_]*::)?test_[A-Za-z0-9_]+)")
    for root, _, files in os.walk(REPO_TESTS):
        for name in files:
            path = os.path.join(root, name)
            if name.endswith((".cpp", ".hpp")):
                with open(path, encoding="utf-8", errors="replace") as f:
                    for line in f:
                        for m in pat.finditer(line):
                            refs.add(m.group(1) + "::" + m.group(2))
                            if line.lstrip().startswith("// libs/langgraph/tests/" + m.group(0)):
                                cases.add(m.group(1) + "::" + m.group(2))
            elif name.startswith("NOT_PORTED") and name.endswith(".md"):
                with open(path, encoding="utf-8") as f:
                    for line in f:
                        m = pat.match(line[2:]) if line.startswith("- ") else None
                        if m:
                            refs.add(m.group(1) + "::" + m.group(2))
                            if "ported, fails" not in line:
                                listed.add(m.group(1) + "::" + m.group(2))
    return (refs, cases & listed) if split else refs


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    if not args:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    mirror, files = args[0], args[1:]
    files = files or list_mirror(mirror)
    refs, both = covered_refs(split=True)
    missing_total = 0
    counts = []
    for fname in files:
        names = test_names(read_mirror(mirror, TESTS_DIR + "/" + fname))
        missing = []
        for n in names:
            short = n.split("::")[-1]
            if fname + "::" + n not in refs and fname + "::" + short not in refs:
                missing.append(n)
        for n in missing:
            print(fname + "::" + n)
        counts.append((fname, len(names), len(missing)))
        missing_total += len(missing)
    print("-- uncovered / tests per file:")
    for fname, total, miss in counts:
        print(f"{fname}: {miss} / {total}")
    print(f"total uncovered: {missing_total}")
    checked = tuple(f + "::" for f in files)
    both = sorted(b for b in both if b.startswith(checked))
    if both:
        print("-- ported (a case's header comment) and listed in NOT_PORTED too (a partial port, or a duplicate):")
        for b in both:
            print(b)
    return 1 if missing_total else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
