"""biomd as a package in its owner's world: the wheel installs `biomd` alone, `python -m biomd`
and `biomd --version` work, and a venv of its own (as pipx or uv tool make) with the example
plugin pip-installed finds the plugin through its entry point, with nothing patched.

The wheel and the venv are built once and kept in .cache/ (by the hash of what they are
built from), so a second run costs seconds."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

from tests.package.test_plugins import LINE_EXPORT

pytestmark = pytest.mark.slow  # builds a wheel and a venv (cached), runs biomd in it

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "biomd-line"
CACHE = ROOT / ".cache" / "package"
SKIP = shutil.ignore_patterns(
    ".git", ".venv", ".cache", "build", "dist", "*.egg-info", "__pycache__", ".*_cache"
)


def digest(*roots: Path) -> str:
    """A hash of every file biomd's wheel (or the plugin) is built from."""
    h = hashlib.sha256()
    for root in roots:
        files = [root] if root.is_file() else sorted(root.rglob("*"))
        for path in files:
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path.relative_to(ROOT)).encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def pip(*args: str, python: str = sys.executable) -> None:
    """The test environment's pip, offline, for `python`'s environment."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """biomd's wheel, built from a clean copy of the checkout (a stale build/ folder in the
    checkout would otherwise leak into it), offline."""
    folder = CACHE / f"wheel-{digest(ROOT / 'biomd', ROOT / 'pyproject.toml', ROOT / 'README.md')}"
    if not list(folder.glob("biomd-*.whl")):
        source = tmp_path_factory.mktemp("source") / "biomd"
        shutil.copytree(ROOT, source, ignore=SKIP)
        pip(
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-w",
            str(folder),
            str(source),
        )
    (found,) = folder.glob("biomd-*.whl")
    return found


@pytest.fixture(scope="session")
def plugin_venv(wheel: Path) -> Path:
    """A venv of its own over the test environment (--system-site-packages, and the test
    environment's site-packages after its own), with biomd's wheel and the example plugin
    pip-installed into it: as `pipx install biomd` then `pipx inject biomd biomd-line`."""
    folder = CACHE / f"venv-{wheel.parent.name}-{digest(EXAMPLE)}"
    ready = folder / "ready"
    if not ready.exists():
        shutil.rmtree(folder, ignore_errors=True)
        venv.EnvBuilder(system_site_packages=True, with_pip=False).create(folder)
        python = str(folder / "bin" / "python")
        own = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        under = [p for p in site.getsitepackages() if Path(p).is_dir()]
        lines = "".join(f"import site; site.addsitedir({p!r})\n" for p in under)
        (Path(own) / "zz_test_environment.pth").write_text(lines)
        pip("install", "--no-deps", "--no-index", "--ignore-installed", str(wheel), python=python)
        pip(
            "install",
            "--no-deps",
            "--no-index",
            "--no-build-isolation",
            str(EXAMPLE),
            python=python,
        )
        ready.touch()
    return folder


def test_the_wheel_installs_biomd_alone(wheel: Path) -> None:
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names}
    assert top == {"biomd", wheel.name.split("-py3")[0] + ".dist-info"}
    info = next(n for n in names if n.endswith(".dist-info/top_level.txt"))
    assert zipfile.ZipFile(wheel).read(info).decode().split() == ["biomd"]
    entry = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "biomd = biomd.frontends.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
    assert "biomd/frontends/web/templates/base.html" in names, "package data travels"
    assert "biomd/sample/WhatsApp Chat with Mum.txt" in names
    assert not any(n.startswith(("tests/", "bench/", "examples/")) for n in names)


def test_python_m_biomd_and_version(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "biomd", "--version"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0 and done.stdout.startswith("biomd "), done.stderr


def test_a_plugin_pip_installed_into_biomds_own_venv_is_found_by_its_entry_point(
    plugin_venv: Path, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # the venv's own biomd
    env["BIOMD_DATA_DIR"] = str(tmp_path / "data")
    biomd = str(plugin_venv / "bin" / "biomd")

    def run(*args: str) -> str:
        done = subprocess.run(
            [biomd, *args], env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    where = subprocess.run(
        [str(plugin_venv / "bin" / "python"), "-c", "import biomd; print(biomd.__file__)"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert where.startswith(str(plugin_venv)), "biomd runs from the venv, as installed"
    assert run("--version").startswith("biomd 0.1.0")
    (listed,) = json.loads(run("plugins", "--json"))
    assert listed["name"] == "line" and listed["registers"]["converters"] == ["line"]
    export = tmp_path / "Chat with Mai.txt"
    export.write_text(LINE_EXPORT, encoding="utf-8")
    assert "4 messages over 2 days" in run("line-check", str(export))
    assert "(line" in run("ingest", str(export), "--no-read", "--no-embed")
    assert "Hakodate" in run("grep", "Hakodate")
