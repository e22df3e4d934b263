"""Settings of every process: environment variables first, overridden by command-line flags.

`Config.from_env` is the one place that reads the environment; the README's and
docs/OPERATING.md's configuration tables list the same variables (a test compares them).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from services.rpc import DEVELOPMENT_SECRET, TokenIssuer


@dataclass(frozen=True)
class Config:
    """Settings: environment variables first, overridden by `verrater serve` flags.

    See the README's configuration table; every field has its variable and its default here.
    """

    bind: str = "127.0.0.1:50051"
    redis_url: str | None = None
    token_secret: str = DEVELOPMENT_SECRET
    token_ttl_seconds: int = 24 * 3600
    game_address: str | None = None
    log_level: str = "INFO"
    grace_seconds: float = 10.0
    # Where bot turns run: "inprocess", "celery", "off", or "auto" (in process when the game
    # service shares its process with the AI service, on Celery workers when it runs alone).
    bots: str = "auto"
    metrics_port: int = 0
    log_format: str = "auto"
    # Per player and second, bursts of twice as many (0: no limit).
    command_rate: float = 20.0
    lobby_rate: float = 5.0
    # WatchNotifications streams a player may hold per process; notifications that may wait
    # for a stream's client before it is cut off (SLOW_READER).
    notify_streams: int = 5
    notify_pending: int = 16
    # Entries the outbound feed for push gateways keeps, about (0: no outbound feed).
    notify_outbound_maxlen: int = 100_000

    @classmethod
    def from_env(cls) -> Config:
        env = os.environ
        return cls(
            bind=env.get("VERRATER_BIND", cls.bind),
            redis_url=env.get("REDIS_URL") or None,
            token_secret=env.get("VERRATER_TOKEN_SECRET", cls.token_secret),
            token_ttl_seconds=int(env.get("VERRATER_TOKEN_TTL", cls.token_ttl_seconds)),
            game_address=env.get("VERRATER_GAME_ADDR") or None,
            log_level=env.get("VERRATER_LOG_LEVEL", cls.log_level),
            grace_seconds=float(env.get("VERRATER_GRACE_SECONDS", cls.grace_seconds)),
            bots=env.get("VERRATER_BOTS", cls.bots),
            metrics_port=int(env.get("VERRATER_METRICS_PORT", cls.metrics_port)),
            log_format=env.get("VERRATER_LOG_FORMAT", cls.log_format),
            command_rate=float(env.get("VERRATER_COMMAND_RATE", cls.command_rate)),
            lobby_rate=float(env.get("VERRATER_LOBBY_RATE", cls.lobby_rate)),
            notify_streams=int(env.get("VERRATER_NOTIFY_STREAMS", cls.notify_streams)),
            notify_pending=int(env.get("VERRATER_NOTIFY_PENDING", cls.notify_pending)),
            notify_outbound_maxlen=int(
                env.get("VERRATER_NOTIFY_OUTBOUND_MAXLEN", cls.notify_outbound_maxlen)
            ),
        )

    @property
    def issuer(self) -> TokenIssuer:
        return TokenIssuer(self.token_secret, self.token_ttl_seconds)
