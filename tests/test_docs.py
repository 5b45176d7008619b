"""The code in README.md and docs/*.md runs as written and prints what the docs show.

The convention (also stated in docs/architecture.md, "Code blocks in the docs"):

- every ```python block runs, in the order of the file, in one namespace per file (a
  block may use what an earlier block of the same file defined);
- a ```text block that directly follows a ```python block is that block's expected
  output; the two are compared with all whitespace runs made single spaces;
- a ```python block that prints must be followed by such a ```text block, unless its
  first line is ``# output not checked: <reason>`` (for output that is not
  deterministic);
- a block that is not meant to run is fenced ```python-norun.

A block importing an optional extra that is not installed (``sb3_contrib`` of the
``train`` extra, for example) is skipped, and the test then reports a skip after running
the file's other blocks.

Also checked: relative links, the ``parlour/...`` paths and ``parlour.x.y`` names the
docs mention, and citations a reader of the repository can follow.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
FILES = [README, *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(?P<indent> *)```(?P<info>[^\n`]*)\n(?P<body>.*?)^(?P=indent)```[ \t]*$", re.M | re.S)
KNOWN_INFO = {"", "python", "python-norun", "text", "bash", "toml"}
NOT_CHECKED = re.compile(r"#\s*output not checked:\s*\S")
OPTIONAL = {"sb3_contrib", "stable_baselines3", "torch", "tensorboard", "matplotlib", "pyspiel", "open_spiel", "ray", "tianshou",
            "torchrl", "agilerl", "supersuit", "starlette", "uvicorn", "httpx", "playwright", "PIL", "moviepy"}
IMPORT = re.compile(r"^\s*(?:import|from)\s+([A-Za-z_]\w*)", re.M)


class Block:
    def __init__(self, info: str, body: str, line: int, indent: int) -> None:
        self.info = info.strip()
        self.body = "\n".join(text[indent:] for text in body.splitlines())
        self.line = line
        self.expected: str | None = None


def blocks(path: Path) -> list[Block]:
    text = path.read_text()
    found: list[Block] = []
    previous_end = None
    for match in FENCE.finditer(text):
        block = Block(match["info"], match["body"], text.count("\n", 0, match.start()) + 1, len(match["indent"]))
        follows = previous_end is not None and not text[previous_end : match.start()].strip()
        if block.info == "text" and follows and found and found[-1].info == "python":
            found[-1].expected = block.body
        found.append(block)
        previous_end = match.end()
    return found


def normal(text: str) -> str:
    return " ".join(text.split())


NEEDS = {"parlour.training.backends.rllib": "ray", "parlour.ray_cluster": "ray", "parlour.interop.openspiel": "pyspiel",
         "parlour.envs.openspiel_v0": "pyspiel", "openspiel:": "pyspiel"}
"""parlour modules that need an optional extra's package."""


def missing_extras(code: str) -> list[str]:
    needed = {m for m in IMPORT.findall(code) if m in OPTIONAL}
    needed |= {package for module, package in NEEDS.items() if module in code}
    return sorted(m for m in needed if importlib.util.find_spec(m) is None)


@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_code_blocks_run_and_print_what_the_doc_shows(path, capsys):
    namespace: dict = {"__name__": "__docs__"}
    skipped = []
    for block in blocks(path):
        if block.info != "python":
            continue
        where = f"{path.relative_to(ROOT)}:{block.line}"
        extras = missing_extras(block.body)
        if extras:
            skipped.append(f"{where} needs {', '.join(extras)}")
            continue
        capsys.readouterr()
        exec(compile(block.body, where, "exec"), namespace)  # noqa: S102 (the docs' own code)
        out = capsys.readouterr().out
        if block.expected is not None:
            assert normal(out) == normal(block.expected), f"{where}: printed\n{out}\nbut the doc shows\n{block.expected}"
        elif out and not NOT_CHECKED.search(block.body.split("\n", 1)[0]):
            raise AssertionError(f"{where} prints but no ```text block follows it with the output:\n{out}")
    if skipped:
        pytest.skip("; ".join(skipped) + " (the file's other blocks ran)")


def test_every_fence_is_of_a_known_kind():
    unknown = [f"{p.relative_to(ROOT)}:{b.line} ```{b.info}" for p in FILES for b in blocks(p) if b.info not in KNOWN_INFO]
    assert not unknown, f"fence kinds are {sorted(KNOWN_INFO)}: {unknown}"


def test_unchecked_outputs_give_a_reason():
    bare = [
        f"{p.relative_to(ROOT)}:{b.line}"
        for p in FILES
        for b in blocks(p)
        if b.info == "python" and re.search(r"#\s*output not checked:\s*$", b.body.split("\n", 1)[0])
    ]
    assert not bare, f"'# output not checked:' needs a reason: {bare}"


def test_readme_has_examples():
    assert sum(b.info == "python" for b in blocks(README)) >= 3


def test_relative_links_resolve():
    """Every relative link of the docs names a file of the repository (images, which
    scripts/make_results.py writes, excepted)."""
    broken = []
    for path in FILES:
        for target in re.findall(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)", path.read_text()):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            if not (path.parent / target.split("#", 1)[0]).exists():
                broken.append(f"{path.relative_to(ROOT)} -> {target}")
    assert not broken, broken


def _defines(module: str, name: str) -> bool:
    """Whether a module's source defines or imports ``name`` at its top level (for modules
    that need an extra not installed here, read rather than imported)."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return False
    tree = ast.parse(Path(spec.origin).read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign):
            names.update(target.id for target in node.targets if isinstance(target, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return name in names


def _resolves(dotted: str) -> bool:
    """``parlour.a.b.name``: the longest importable module prefix, then attributes (a
    module that needs a missing extra is read instead: ``_defines``)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError as error:
            if missing_extras(str(error)) or (error.name or "").split(".")[0] in OPTIONAL or "extra" in str(error):
                module = ".".join(parts[:cut])
                return cut == len(parts) or (cut == len(parts) - 1 and _defines(module, parts[-1]))
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_named_files_and_modules_exist():
    """Every ``parlour/...`` file and ``parlour.x.y`` name the docs mention in code
    spans exists (paths with placeholders such as ``<game>`` are templates)."""
    missing = []
    for path in FILES:
        text = path.read_text()
        for name in re.findall(r"`((?:parlour|tests|benchmarks|scripts|docs)/[\w/.]+)`", text):
            if not (ROOT / name.rstrip("/")).exists():
                missing.append(f"{path.relative_to(ROOT)}: {name}")
        for name in re.findall(r"`(parlour(?:\.[A-Za-z_]\w*)+)", text):
            if re.search(r"\.(json|toml|zip|csv|png|md)$", name):
                continue  # a file name such as parlour.json
            if not _resolves(name):
                missing.append(f"{path.relative_to(ROOT)}: {name}")
    assert not missing, missing


UNFOLLOWABLE = re.compile(r"\bseed[ -]?00\d\b|\brules file\b|\.\./(?:rules|shared)/|\bseeds/", re.I)
"""Citations of documents the repository does not hold (the project's original documents
by file number, its rules files, paths outside the checkout)."""

CITATION_PENDING: set[str] = set()
"""Files exempt from the citation guard (none)."""


def test_citations_name_what_a_reader_has():
    """Code and docs cite docs/<game>.md and the original documents by title and author,
    not "seed 003", "the rules file" or ../rules/ (test files may name their vectors'
    sources).  The generated part of docs/baselines.md is checked at its source, the
    policies' ``source`` attributes."""
    paths = [*FILES, *ROOT.glob("benchmarks/*.py"), *ROOT.glob("scripts/*.py"), *ROOT.glob("parlour/**/*.py")]
    found = []
    for path in paths:
        name = str(path.relative_to(ROOT))
        if name in CITATION_PENDING:
            continue
        text = path.read_text()
        if name == "docs/baselines.md":
            text = text.split("<!-- reference -->", 1)[0]
        for number, line in enumerate(text.splitlines(), 1):
            if UNFOLLOWABLE.search(line):
                found.append(f"{name}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_readme_names_the_two_commands():
    text = README.read_text()
    assert 'pip install -e ".[train]" && parlour train' in text
    test_command = ('pip install -e ".[dev,train,rllib]" && ruff check && mypy && pytest -n 2 -m "not serial and not slow" '
                    "&& pytest -m serial")
    assert test_command in text
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_command in ci  # CI runs exactly the README's test command
