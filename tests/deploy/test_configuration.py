"""What the code says, and that the deployment files can rely on it.

The variables `Config.from_env` reads (every `env.get("NAME", ...)` in its body, see
`files.config_env_names`), the port of `Config().bind`, and the commands the CLI knows: the other
modules here check the deployment files against these.
"""

from __future__ import annotations

import re
import shlex

from services.config import Config
from tests.deploy.files import (
    APP_SERVICES,
    IMAGE,
    ROOT,
    WORKER_COMMAND,
    compose,
    config_env_names,
    default_port,
    image_repository,
)


def test_the_code_reads_the_variables_the_deployment_sets() -> None:
    names = config_env_names()
    assert {"VERRATER_BIND", "REDIS_URL", "VERRATER_TOKEN_SECRET", "VERRATER_GAME_ADDR"} <= names
    fields = set(Config.__dataclass_fields__)
    assert len(names) == len(fields), "a Config field whose variable this parser does not see"
    assert default_port() == 50051


def test_every_command_is_one_the_cli_knows() -> None:
    from services.cli import build_parser

    parser = build_parser()
    commands = [*APP_SERVICES.values(), WORKER_COMMAND]
    for service in compose()["services"].values():
        if "command" in service and image_repository(service["image"]) == IMAGE:
            commands.append(service["command"])
    for argv in commands:
        assert parser.parse_args(argv).handler is not None, argv


def documented_variables(path: str, heading: str) -> set[str]:
    """The variables of the first table under `heading` in a Markdown file (first column)."""
    lines = (ROOT / path).read_text("utf-8").splitlines()
    start = lines.index(heading)
    names: set[str] = set()
    in_table = False
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            in_table = True
            match = re.match(r"\|\s*`([A-Z_]+)`\s*\|", line)
            if match:
                names.add(match.group(1))
        elif in_table:
            break
    return names


def test_the_operators_guide_lists_exactly_the_variables_the_code_reads() -> None:
    assert documented_variables("docs/OPERATING.md", "## Configuration") == config_env_names()


def test_the_readme_lists_exactly_the_variables_the_code_reads() -> None:
    assert documented_variables("README.md", "## Running the backend") == config_env_names()


def test_the_stack_by_hand_uses_commands_and_variables_the_code_knows() -> None:
    """docs/OPERATING.md's "Running it by hand": every `verrater` line parses with the CLI, and
    every variable it sets is one `Config.from_env` reads."""
    from services.cli import build_parser

    lines = (ROOT / "docs/OPERATING.md").read_text("utf-8").splitlines()
    start = lines.index("## Running it by hand (one machine, no containers)")
    first = lines.index("```sh", start)
    block = lines[first + 1 : lines.index("```", first + 1)]
    parser = build_parser()
    known = config_env_names()
    commands = 0
    for line in block:
        words = shlex.split(line.split("#", 1)[0], posix=True)
        if words[:1] == ["export"]:
            words = words[1:]
        while words and re.fullmatch(r"[A-Z_]+=.*", words[0]):
            assert words[0].split("=", 1)[0] in known, words[0]
            words = words[1:]
        if words[-1:] == ["&"]:
            words = words[:-1]
        if words[:1] == ["verrater"]:
            assert parser.parse_args(words[1:]).handler is not None, line
            commands += 1
    assert commands >= 7  # two replicas, lobby, AI, two workers, simulate
