"""No module-level name of the package is defined and never used.

A function, class or constant at the top of a module whose name appears nowhere
else in the repository (code, tests, docs) is dead: it is removed, not kept "in
case". A name counts as used wherever it appears as a word, so a name only
documented or only tested is kept.
"""

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUFFIXES = {".py", ".md", ".rst", ".toml", ".cfg", ".txt"}


def _texts():
    for path in ROOT.rglob("*"):
        parts = path.relative_to(ROOT).parts
        if path.suffix in SUFFIXES and not {"_build", ".git"} & set(parts):
            yield path, path.read_text(errors="ignore")


def _defined(tree):
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.name
        elif isinstance(node, ast.Assign):
            yield from (t.id for t in node.targets if isinstance(t, ast.Name))


def test_no_module_level_name_is_dead():
    texts = dict(_texts())
    words = Counter()
    for text in texts.values():
        words.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    dead = [
        f"{path.relative_to(ROOT)}: {name}"
        for path, text in texts.items()
        if path.suffix == ".py" and path.relative_to(ROOT).parts[0] == "sklearn_rank"
        for name in _defined(ast.parse(text))
        if not name.startswith("__") and words[name] <= 1
    ]
    assert not dead, "defined and never used:\n" + "\n".join(dead)
