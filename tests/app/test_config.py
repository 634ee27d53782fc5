"""One config file wherever biomd runs: read from every folder, the environment over it, never a
./.env; `biomd config` edits it; an old ./.env's settings are moved into it once, visibly."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from biomd.app.config import ConfigFile, adopt_dotenv, name_of, value, values
from biomd.errors import ConfigError
from biomd.frontends.cli import app
from biomd.settings import Settings, config_file, load, names


def cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def test_the_config_file_is_in_the_config_folder_and_settings_come_from_it(
    config_folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert config_file() == config_folder / "settings.env"
    ConfigFile().set("owner_names", "Sam Rivera")
    monkeypatch.chdir(tmp_path)
    assert Settings().owner.names == ("Sam Rivera",)
    monkeypatch.setenv("BIOMD_OWNER_NAMES", "Sam")
    assert Settings().owner.names == ("Sam",), "the environment wins over the file"
    assert Settings(_env_file=None).owner.names == ("Sam",)


def test_a_dotenv_in_the_working_folder_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / ".env").write_text("BIOMD_OWNER_NAMES=Stray\n")
    monkeypatch.chdir(tmp_path)
    assert Settings().owner.names == ()


@pytest.mark.parametrize("key", ["BIOMD_OWNER_NAMES", "owner_names", "owner-names", "OWNER_NAMES"])
def test_a_key_is_the_setting_by_any_of_its_spellings(key: str) -> None:
    assert name_of(key) == "BIOMD_OWNER_NAMES"


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("BIOMD_LLM_MODEL", "BIOMD_LLM_MODEL"),
        ("llm_model", "BIOMD_LLM_MODEL"),
        ("llm.model", "BIOMD_LLM_MODEL"),
        ("reading.confirm_usd", "BIOMD_READ_CONFIRM_USD"),
        ("web.enabled", "BIOMD_WEB_ENABLED"),
        ("BIOMD_WEB", "BIOMD_WEB_ENABLED"),
    ],
)
def test_a_key_is_also_its_group_and_field(key: str, name: str) -> None:
    assert name_of(key) == name


def test_set_by_group_and_field_is_read_back_in_its_group() -> None:
    code, out = cli("config", "set", "llm.model", "x/y")
    assert code == 0, out
    assert ConfigFile().read() == {"BIOMD_LLM_MODEL": "x/y"}
    assert load().llm.model == "x/y"


def test_a_file_that_uses_older_names_can_still_be_set(config_folder: Path) -> None:
    (config_folder / "settings.env").write_text("BIOMD_WEB=false\nBIOMD_STEPS_INGEST=7\n")
    code, out = cli("config", "set", "owner_names", "Sam")
    assert code == 0, out
    s = load()
    assert (s.web.enabled, s.reading.steps, s.owner.names) == (False, 7, ("Sam",))
    assert value("web.enabled").value == "false" and value("web_enabled").origin == "config file"
    code, out = cli("config", "set", "BIOMD_STEPS_INGEST", "x")
    assert code == 1 and "BIOMD_STEPS_READING" in out and "'x'" in out


def test_every_name_reaches_its_group_and_an_older_name_gives_way_to_the_new(
    config_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (config_folder / "settings.env").write_text(
        "BIOMD_WEB=false\nBIOMD_STEPS_INGEST=7\nBIOMD_READ_CONFIRM_USD=2.5\n"
        "BIOMD_TELEGRAM_ALLOWED_USERS=11, 22\nBIOMD_LANGUAGES=DE,es\n"
    )
    s = load()
    assert (s.web.enabled, s.reading.steps, s.reading.confirm_usd) == (False, 7, 2.5)
    assert s.telegram.allowed_users == {11, 22} and s.owner.languages == ("de", "es")
    monkeypatch.setenv("BIOMD_WEB_ENABLED", "true")
    monkeypatch.setenv("BIOMD_STEPS_READING", "9")
    assert (load().web.enabled, load().reading.steps) == (True, 9)
    assert load(llm_model="z").llm.model == "z", "a keyword by name, over both"


def test_a_wrong_time_zone_or_user_id_is_named_when_the_settings_load(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BIOMD_TIMEZONE", "Mars/Base")
    monkeypatch.setenv("BIOMD_DISCORD_ALLOWED_USERS", "12, me")
    with pytest.raises(ConfigError) as caught:
        load()
    said = caught.value.user_message
    assert "BIOMD_TIMEZONE (in the environment): Value error, not a time zone name" in said
    assert "BIOMD_DISCORD_ALLOWED_USERS (in the environment)" in said and "user ids" in said


def test_every_setting_is_described_and_has_one_name() -> None:
    written = [names.name_of(path) for path, _ in names.paths(Settings)]
    assert len(written) == len(set(written)) >= 79
    undescribed = [names.name_of(p) for p, info in names.paths(Settings) if not info.description]
    assert undescribed == []
    assert len(Settings.model_fields) <= 20, "the top level holds the groups, not the fields"


def test_an_unknown_key_is_refused_with_the_names_that_come_close() -> None:
    with pytest.raises(
        ConfigError, match=r"no setting BIOMD_OWNER_NAME\. Did you mean BIOMD_OWNER_NAMES"
    ):
        ConfigFile().set("owner_name", "Sam")
    with pytest.raises(ConfigError, match="environment only"):
        ConfigFile().set("BIOMD_CONFIG_DIR", "/elsewhere")
    assert name_of("BIOMD_STEPS_INGEST") == "BIOMD_STEPS_READING", "an older name still works"


def test_a_value_biomd_cant_run_with_is_refused_and_nothing_changes() -> None:
    file = ConfigFile()
    file.set("web_port", "8080")
    with pytest.raises(ConfigError) as caught:
        file.set("BIOMD_WEB_PORT", "eighty")
    said = caught.value.user_message
    assert "Nothing was changed" in said and "BIOMD_WEB_PORT" in said and "'eighty'" in said
    with pytest.raises(ConfigError, match="BIOMD_LLM_BACKEND"):
        file.set("llm_backend", "gpt-in-a-box")
    assert file.read() == {"BIOMD_WEB_PORT": "8080"}


def test_set_keeps_the_file_private_and_every_other_line() -> None:
    file = ConfigFile()
    file.path.parent.mkdir(parents=True, exist_ok=True)
    file.path.write_text("# mine\nBIOMD_LLM_MODEL=a/b\n# BIOMD_TELEGRAM_TOKEN=\n")
    file.set("telegram_token", "123:SECRET-TOKEN-VALUE")
    file.set("owner_names", 'Sam "the" Rivera, Sam')
    text = file.path.read_text()
    assert text.startswith("# mine\nBIOMD_LLM_MODEL=a/b\nBIOMD_TELEGRAM_TOKEN=123:SECRET")
    assert stat.S_IMODE(file.path.stat().st_mode) == 0o600
    assert Settings().owner.names == ('Sam "the" Rivera', "Sam")
    assert file.unset("llm_model") == ("BIOMD_LLM_MODEL", True)
    assert file.unset("llm_model") == ("BIOMD_LLM_MODEL", False)
    assert "# mine\n" in file.path.read_text() and "LLM_MODEL=" not in file.path.read_text()


def test_list_masks_keys_and_says_where_each_value_comes_from(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ConfigFile().set("llm_api_key", "sk-or-v1-0123456789abcdef")
    ConfigFile().set("llm_model", "a/b")
    monkeypatch.setenv("BIOMD_LLM_MODEL", "c/d")
    shown = {v.setting.name: (v.shown(), v.origin) for v in values()}
    assert shown["BIOMD_LLM_API_KEY"] == ("****cdef", "config file")
    assert shown["BIOMD_LLM_MODEL"] == ("c/d", "environment")
    assert value("web_port").origin == "default" and value("web_port").value == "8765"
    code, out = cli("config", "list")
    assert code == 0 and "****cdef" in out and "sk-or-v1" not in out
    code, out = cli("config", "get", "llm_api_key", "--reveal")
    assert "sk-or-v1-0123456789abcdef" in out


def test_config_commands_work_when_the_settings_are_broken_and_others_say_why(
    config_folder: Path,
) -> None:
    (config_folder / "settings.env").write_text("BIOMD_WEB_PORT=eighty\n")
    code, out = cli("stats")
    assert code == 1
    assert "BIOMD_WEB_PORT (in " + str(config_folder / "settings.env") in out
    assert "Traceback" not in out
    code, out = cli("config", "set", "web_port", "8766")
    assert code == 0, out
    assert load().web.port == 8766


def test_load_says_a_bad_environment_value_is_the_environments(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("BIOMD_WEB_PORT", "x")
    with pytest.raises(ConfigError, match=r"BIOMD_WEB_PORT \(in the environment\)"):
        load()


def test_an_old_dotenv_is_moved_into_the_config_file_once_and_the_file_wins_a_clash(
    tmp_path: Path,
) -> None:
    clone = tmp_path / "clone"
    clone.mkdir()
    old = (
        "# biomd\n"
        "BIOMD_OWNER_NAMES='Sam Rivera'\n"
        "BIOMD_LLM_MODEL=c/d\n"
        "BIOMD_TELEGRAM_TOKEN=123:ABCDEFGHIJKLMNOP\n"
        "OTHER_TOOL=1\n"
    )
    (clone / ".env").write_text(old)
    file = ConfigFile()
    file.set("llm_model", "a/b")

    said = adopt_dotenv(clone)

    assert said is not None
    assert f"Moved 2 of the 3 in {clone / '.env'}" in said
    assert "BIOMD_LLM_MODEL was set in both; the config file's value is kept: 'a/b'" in said
    assert "(the .env had 'c/d')" in said
    assert "123:ABCDEFGHIJKLMNOP" not in said, "a token is never shown"
    assert file.read() == {
        "BIOMD_LLM_MODEL": "a/b",
        "BIOMD_OWNER_NAMES": "Sam Rivera",
        "BIOMD_TELEGRAM_TOKEN": "123:ABCDEFGHIJKLMNOP",
    }
    assert (clone / ".env.biomd-moved").read_text() == old, "nothing is lost"
    assert (clone / ".env").read_text() == "# biomd\nOTHER_TOOL=1\n", "another program's stays"
    assert adopt_dotenv(clone) is None, "once"


def test_a_dotenv_of_biomd_settings_alone_goes_and_a_second_backup_keeps_the_first(
    tmp_path: Path,
) -> None:
    (tmp_path / ".env.biomd-moved").write_text("earlier\n")
    (tmp_path / ".env").write_text("BIOMD_OWNER_NAMES=Ana\n")
    said = adopt_dotenv(tmp_path)
    assert said is not None and not (tmp_path / ".env").exists()
    assert (tmp_path / ".env.biomd-moved").read_text() == "earlier\n"
    assert (tmp_path / ".env.biomd-moved.2").read_text() == "BIOMD_OWNER_NAMES=Ana\n"
    assert "(it holds keys)" not in said


def test_a_dotenv_without_biomd_settings_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DJANGO_DEBUG=1\n")
    assert adopt_dotenv(tmp_path) is None
    assert (tmp_path / ".env").read_text() == "DJANGO_DEBUG=1\n"


@pytest.mark.slow
def test_the_same_settings_from_every_folder_and_every_way_of_running_biomd(
    tmp_path: Path,
) -> None:
    """The bug this fixes: settings set in the clone's folder were not seen from another."""
    folders = [tmp_path / name for name in ("clone", "elsewhere", "assistant")]
    for folder in folders:
        folder.mkdir()
    (folders[0] / ".env").write_text("BIOMD_OWNER_NAMES=Sam Rivera\n")
    env = {**os.environ, "BIOMD_DATA_DIR": str(tmp_path / "data")}
    biomd = str(Path(sys.executable).with_name("biomd"))

    def run(folder: Path, *args: str, command: tuple[str, ...] = (biomd,)) -> str:
        done = subprocess.run(
            [*command, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout + done.stderr

    moved = run(folders[0], "config", "path")
    assert "Moved 1 of the 1" in moved and "BIOMD_OWNER_NAMES" in moved
    assert run(folders[1], "config", "get", "owner_names").startswith("Sam Rivera\n")
    python_m = (sys.executable, "-m", "biomd")
    assert run(folders[2], "config", "get", "BIOMD_OWNER_NAMES", command=python_m).startswith(
        "Sam Rivera\n"
    )
    run(folders[2], "config", "set", "owner_names", "Sam Rivera, Sam")
    assert run(folders[0], "config", "list").count("Sam Rivera, Sam") == 1
