"""What the code says, and that the deployment files can rely on it.

The variables `Config.from_env` reads (every `env.get("NAME", ...)` in its body, see
`files.config_env_names`), the port of `Config().bind`, and the commands the CLI knows: the other
modules here check the deployment files against these.
"""

from __future__ import annotations

from services.config import Config
from tests.deploy.files import (
    APP_SERVICES,
    IMAGE,
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
