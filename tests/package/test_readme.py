"""The README and the docs stay true. README.md is a short entry page (at most 200 lines)
whose Quickstart is two commands and which links every page in docs/. Across README.md,
CONTRIBUTING.md and docs/*.md: every `biomd …` command in a ```sh block exists with the
options it uses; every relative link resolves to a file (and to a heading, where it names
one); every BIOMD_ name is a setting, a name the code reads from the environment itself, or
the example plugin's; and every path into the code (biomd/…, tests/…) exists. Every setting
is in .env.example. The generated references, docs/settings.md and docs/cli.md, are checked
against the code by test_references.py, not here."""

from __future__ import annotations

import functools
import importlib.util
import re
import shlex
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import typer
from pydantic import BaseModel
from typer.testing import CliRunner

from biomd.frontends.cli import app
from biomd.plugins import key_of
from biomd.settings import Settings, names

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

PAGES = (
    "your-data.md",
    "bots.md",
    "web-view.md",
    "mirror.md",
    "sharing.md",
    "assistants.md",
    "models-and-costs.md",
    "privacy.md",
    "configuration.md",
    "troubleshooting.md",
    "architecture.md",
    "glossary.md",
    "plugins.md",
)
"""The guides, one page per subject; each is linked from the README."""

GENERATED = ("settings.md", "cli.md")
"""The references written from the code by tests/support/references.py and kept true by
test_references.py: linked from the README (a link to one may go ahead of the file while it
is being written), but not read by the checks here."""

EXAMPLE = ROOT / "examples" / "biomd-line"
"""The plugin docs/plugins.md walks through: the docs show its command and its setting."""

MAX_README_LINES = 200


def written() -> dict[Path, str]:
    """README.md, CONTRIBUTING.md and every docs page written by hand, by path."""
    docs = sorted(p for p in DOCS.glob("*.md") if p.name not in GENERATED)
    return {p: p.read_text(encoding="utf-8") for p in [README, ROOT / "CONTRIBUTING.md", *docs]}


def prose(text: str) -> str:
    """The text without its code blocks and inline code (where links are not links)."""
    return re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", text, flags=re.S))


def shown_commands(text: str) -> list[list[str]]:
    """`biomd …` lines in a page's ```sh blocks, as argument lists (comments dropped)."""
    blocks = re.findall(r"```sh\n(.*?)```", text, re.S)
    out = []
    for line in "\n".join(blocks).splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith((".venv/bin/biomd ", "biomd ")):
            out.append(shlex.split(line)[1:])
    return out


def command_path(root: Any, args: list[str]) -> list[str]:
    """The command a line runs: `share save therapist` is share's save, and a group with a
    default subcommand runs it when the line names none (`mirror --person Maya`)."""
    command: Any = root
    path: list[str] = []
    for arg in args:
        subcommands = getattr(command, "commands", {})
        if arg not in subcommands:
            break
        path.append(arg)
        command = subcommands[arg]
    default = getattr(command, "default", None)
    return [*path, default] if default else path


@functools.cache
def example_plugin() -> tuple[str, ModuleType]:
    """The example plugin's name (its entry point's) and its module, loaded from its file."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))
    [(name, module_name)] = project["project"]["entry-points"]["biomd"].items()
    spec = importlib.util.spec_from_file_location(module_name, EXAMPLE / f"{module_name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(module_name, module)
    spec.loader.exec_module(module)
    return name, module


def plugin_app() -> typer.Typer:
    """A CLI holding only the commands the example plugin adds (`biomd line-check`)."""
    added = typer.Typer()
    added.callback()(lambda: None)  # a group, even with one command
    example_plugin()[1].register_commands(added)
    return added


def plugin_settings() -> set[str]:
    """The example plugin's settings, as biomd names them (BIOMD_LINE_OWNER)."""
    name, module = example_plugin()
    models: list[type[BaseModel]] = []
    module.register_settings(models.append)
    prefix = f"{names.PREFIX}{key_of(name).upper()}_"
    return {prefix + field.upper() for model in models for field in model.model_fields}


ENVIRONMENT_READ = re.compile(
    r"""(?:environ\.get\(|getenv\(|environ\[)\s*(?:"(BIOMD_\w+)"|(\w+))"""
)
"""A read of the environment: os.environ.get("BIOMD_…"), getenv(NAME), os.environ[NAME]."""


def read_from_the_environment() -> set[str]:
    """BIOMD_ names the code reads from the environment itself, not as settings: where the
    config file is (BIOMD_CONFIG_DIR), the tests' models (BIOMD_TEST_MODELS_DIR), a bench's
    knob. Read as a literal, or as a constant of the same file."""
    found = set()
    for path in [
        *ROOT.glob("biomd/**/*.py"),
        *ROOT.glob("tests/**/*.py"),
        *ROOT.glob("bench/*.py"),
    ]:
        text = path.read_text(encoding="utf-8")
        constants = dict(re.findall(r'^(\w+)\s*=\s*"(BIOMD_\w+)"', text, re.M))
        for literal, constant in ENVIRONMENT_READ.findall(text):
            if name := literal or constants.get(constant):
                found.add(name)
    return found


def known_names() -> set[str]:
    """Every BIOMD_ name the docs may write: the settings (older names included), the names
    read from the environment, and the example plugin's settings."""
    return set(names.table(Settings)) | read_from_the_environment() | plugin_settings()


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to -."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def test_readme_is_a_short_entry_page() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= MAX_README_LINES, (
        f"README.md has {len(lines)} lines; the most is {MAX_README_LINES}: move the detail "
        "to its page in docs/"
    )


def test_quickstart_is_exactly_make_run_and_make_test() -> None:
    quick = README.read_text(encoding="utf-8").split("## Quickstart", 1)[1].split("##", 1)[0]
    block = re.search(r"```sh\n(.*?)```", quick, re.S)
    assert block is not None
    commands = [line.split("#")[0].strip() for line in block.group(1).split("\n")[:-1]]
    assert commands == ["make run", "make test"]


def test_every_docs_page_exists_and_the_readme_links_it() -> None:
    readme = README.read_text(encoding="utf-8")
    pages = {p.name for p in DOCS.glob("*.md")} | set(PAGES) | set(GENERATED)
    for page in PAGES:
        assert (DOCS / page).is_file(), f"docs/{page} is missing"
    unlinked = sorted(p for p in pages if not re.search(rf"\]\(docs/{re.escape(p)}[)#]", readme))
    assert unlinked == [], f"README.md links no docs/{', docs/'.join(unlinked)}"


def test_every_relative_link_resolves_to_a_file_and_a_heading() -> None:
    broken = []
    links = 0
    for path, text in written().items():
        for target in re.findall(r"\]\(([^)\s]+)\)", prose(text)):
            if re.match(r"[a-z]+:", target):  # https:, mailto:
                continue
            links += 1
            file, _, anchor = target.partition("#")
            goal = (path.parent / file).resolve() if file else path
            where = f"{path.relative_to(ROOT)}: ({target})"
            if not goal.exists():
                if goal.parent == DOCS and goal.name in GENERATED:
                    continue  # written by its generator; may not be there yet
                broken.append(f"{where} is no file")
            elif anchor and goal.suffix == ".md" and anchor not in anchors(goal):
                broken.append(f"{where}: no heading #{anchor} in {goal.name}")
    assert links >= 50, "the scan found too few links to mean anything"
    assert broken == []


def test_every_biomd_name_in_the_docs_is_a_real_setting() -> None:
    known = known_names()
    assert {"BIOMD_WEB_ENABLED", "BIOMD_CONFIG_DIR", "BIOMD_TEST_MODELS_DIR"} <= known
    unknown = []
    for path, text in written().items():
        for name in re.findall(r"BIOMD_[A-Z0-9_]*_(?=[*<])|BIOMD_[A-Z0-9_]*[A-Z0-9]", text):
            family = name.endswith("_")  # BIOMD_ZIP_MAX_*, BIOMD_LINE_<FIELD>
            if not (any(k.startswith(name) for k in known) if family else name in known):
                unknown.append(f"{path.relative_to(ROOT)}: {name}")
    assert unknown == [], "not a setting, nor read from the environment"


def test_every_path_into_the_code_the_docs_name_exists() -> None:
    """biomd/…, tests/…, bench/… and examples/… as the pages write them (the glossary and
    the architecture name a module for each concept and each step)."""
    missing = []
    named = 0
    for path, text in written().items():
        for found in re.findall(r"(?<![\w/.-])((?:biomd|tests|bench|examples)/[\w./-]*\w/?)", text):
            named += 1
            if not (ROOT / found).exists():
                missing.append(f"{path.relative_to(ROOT)}: {found}")
    assert named >= 100, "the scan found too few paths to mean anything"
    assert missing == []
    for page in ("glossary.md", "architecture.md"):
        modules = re.findall(r"biomd/[\w/]+\.py", (DOCS / page).read_text(encoding="utf-8"))
        assert len(set(modules)) >= 40, f"docs/{page} names the modules where things live"


@pytest.mark.slow
def test_every_command_the_docs_show_exists_with_the_options_it_uses() -> None:
    clis = [(cli, typer.main.get_command(cli)) for cli in (app, plugin_app())]
    runner = CliRunner()
    shown = [(path, args) for path, text in written().items() for args in shown_commands(text)]
    assert len(shown) >= 25
    for page, args in shown:
        # biomd's own command, or else the example plugin's (docs/plugins.md)
        cli, root = next(
            ((c, r) for c, r in clis if args[0] in getattr(r, "commands", {})), clis[0]
        )
        path = command_path(root, args)
        where = f"{page.relative_to(ROOT)}: biomd {' '.join(args)}"
        assert path, f"{where}: {args[0]} is not a command"
        result = runner.invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, f"{where}: {result.output}"
        for option in (a.split("=")[0] for a in args[1:] if a.startswith("--")):
            assert option in result.output, f"{where}: biomd {' '.join(path)} has no {option}"


def test_every_setting_is_in_env_example() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    for key in (names.name_of(path) for path, _ in names.paths(Settings)):
        assert key in example, f"{key} missing from .env.example"
