"""Settings of every process: environment variables first, overridden by command-line flags.

`Config.from_env` is the one place that reads the environment; the README's and
docs/OPERATING.md's configuration tables list the same variables (a test compares them).
"""

from __future__ import annotations

import errno
import ipaddress
import logging
import os
import secrets
import socket
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from services.eventstore import is_cluster_url
from services.rpc import (
    DEFAULT_TOKEN_TTL_SECONDS,
    DEVELOPMENT_SECRET,
    MIN_SECRET_BYTES,
    TokenIssuer,
)

log = logging.getLogger("verrater")

#: What `verrater serve` runs without a service named: the whole game in one process.
ALL_SERVICES = frozenset({"game", "lobby", "ai"})


class ConfigError(ValueError):
    """A setting that cannot work; the message names the variable to fix. The CLI prints it
    and exits with status 2, without a traceback."""


class Listener(Enum):
    """An address a command listens on: what listens there, and the flag or variable that
    moves it (for the one line that says it is taken)."""

    GRPC = ("the gRPC services", "choose another with --bind or VERRATER_BIND")
    DOOR = (
        "the browser's door",
        "choose another with --web-bind or VERRATER_WEB_BIND, or turn the door off with "
        "--web-bind ''",
    )
    DOOR_ALONE = ("the browser's door", "choose another with --web-bind or VERRATER_WEB_BIND")
    METRICS = ("metrics", "choose another port with VERRATER_METRICS_PORT (0: no metrics)")


@contextmanager
def listening(address: str, listener: Listener) -> Iterator[None]:
    """Where a command starts to listen on `address`: an address in use, or one that cannot be
    had, becomes a ConfigError of one line naming it and what moves it, not a traceback."""
    try:
        yield
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            problem = "is already in use (another program listens there)"
        else:
            problem = f"cannot be listened on: {error.strerror or error}"
        what, move = listener.value
        raise ConfigError(f"{address} ({what}) {problem}: {move}") from None


def ensure_free(address: str, listener: Listener) -> None:
    """ConfigError (see listening) when `host:port` cannot be listened on: in use, not this
    host's, ... Port 0 and addresses that are not `host:port` are left to the server. For gRPC,
    which logs an error line of its own and then says only that it failed; and before a part
    that would have to be stopped again when a later one cannot listen."""
    host, _, port = address.rpartition(":")
    if not port.isdigit() or int(port) == 0:
        return
    with listening(address, listener):
        found = socket.getaddrinfo(
            host.strip("[]") or None, int(port), type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
        failed: list[OSError] = []
        for family, kind, protocol, _, where in found:
            with socket.socket(family, kind, protocol) as probe:
                # As servers do: a port whose last connections linger in TIME_WAIT is free.
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    probe.bind(where)
                except OSError as error:
                    if error.errno == errno.EADDRINUSE:
                        raise
                    failed.append(error)  # say `localhost` without IPv6: served on IPv4
        if len(failed) == len(found):
            raise failed[0]


def _optional_int(env: Mapping[str, str], name: str) -> int | None:
    """The whole number `name` is set to, else None (ConfigError when it is not one)."""
    value = env.get(name)
    return int(_parsed(int, name, value)) if value else None


def _parsed(kind: type[int] | type[float], name: str, value: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        what = "a whole number" if kind is int else "a number"
        raise ConfigError(f"{name} must be {what}, not {value!r}") from None


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    """The whole number `name` is set to, else `default` (ConfigError when it is not one)."""
    value = env.get(name)
    return default if value is None else int(_parsed(int, name, value))


def _float(env: Mapping[str, str], name: str, default: float) -> float:
    """The number `name` is set to, else `default` (ConfigError when it is not one)."""
    value = env.get(name)
    return default if value is None else float(_parsed(float, name, value))


@dataclass(frozen=True)
class Config:
    """Settings: environment variables first, overridden by `verrater serve` flags.

    See the README's configuration table; every field has its variable and its default here.
    """

    bind: str = "127.0.0.1:50051"
    # redis://host:port/db (a standalone Redis) or redis+cluster://host:port (any node of a
    # Redis Cluster); None: in memory.
    redis_url: str | None = None
    # Replicas that must hold an append before it is acknowledged (WAIT), and how long to wait
    # for them: None is 1 on a cluster, 0 on a standalone Redis.
    redis_wait_replicas: int | None = None
    redis_wait_ms: int = 1000
    token_secret: str = DEVELOPMENT_SECRET
    token_ttl_seconds: int = DEFAULT_TOKEN_TTL_SECONDS
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
    # Streams one player, and one network address, may have open at once, per process (0: no
    # limit).
    streams_per_player: int = 32
    streams_per_peer: int = 256
    # Answers a Play stream may hold for a client that does not read before it is cut off.
    stream_backlog: int = 32
    # Whose `x-forwarded-for` is believed: comma-separated IPs or CIDR blocks (none by default).
    trusted_proxies: str = ""
    # New guests per network peer and minute, and per second from everyone (per lobby process);
    # bursts of four times as many; 0: no limit.
    guest_rate: float = 60.0
    guest_global_rate: float = 50.0
    # Sign-in attempts per player id and minute, and per network peer and minute; bursts of
    # four times as many; 0: no limit.
    signin_rate: float = 6.0
    signin_peer_rate: float = 60.0
    # Tables not yet started that players from one network peer may host (0: no limit).
    peer_tables: int = 20
    # The browser's door (gRPC-Web and the page) in embedded mode and `serve web`; empty: none.
    web_bind: str = "127.0.0.1:8080"
    # Origins whose pages may call the door from elsewhere (CORS): comma-separated, `*` for any;
    # the door's own page needs none.
    web_origins: str = ""
    # Where `serve web` sends lobby and AI calls (game and stats calls go to game_address).
    lobby_address: str | None = None
    ai_address: str | None = None

    # The turn timer of the tables QuickMatch opens (5 s to 14 days).
    quick_match_turn_seconds: int = 60
    # WatchNotifications streams a player may hold per process; notifications that may wait
    # for a stream's client before it is cut off (SLOW_READER).
    notify_streams: int = 5
    notify_pending: int = 16
    # Entries the outbound feed for push gateways keeps, about (0: no outbound feed).
    notify_outbound_maxlen: int = 100_000
    # WatchChat streams one lobby process serves per table (each message is sent on each).
    chat_watchers_per_table: int = 200

    # Celery's broker for bot turns: RabbitMQ (amqp://) in production, or a Redis; None: the
    # event store's REDIS_URL (simple deployments).
    broker_url: str | None = None
    # The broker's queue of bot turns.
    bot_queue: str = "verrater.bots"
    # Seconds before a Redis broker redelivers a task whose worker died (RabbitMQ: at once).
    task_visibility_seconds: int = 30
    # A bot takes at least this long per move (0: as fast as it decides).
    bot_min_think_ms: float = 0.0
    # While other games' turns come at least this often, a game replica publishes bot turns at
    # most once per this many milliseconds: under load the turns of several games share a
    # Celery message (0: every turn as soon as it can; a lone game's turns never wait).
    bot_publish_gap_ms: float = 50.0
    # Where workers reach this game replica itself: a bot turn names it, sealed with the token
    # secret, and the worker submits the bot's move there, where the game is in memory at the
    # announced version. host:port, a host (the port served), or "auto" (this host's name
    # resolved: a container's or pod's own IP). None: moves go through game_address.
    advertise_address: str | None = None
    # A bot turn still unanswered this long after it was announced is announced again (by any
    # game replica), then at doubling intervals up to a minute.
    bot_resend_seconds: float = 3.0
    # Processes per worker (0: one per CPU).
    worker_concurrency: int = 0

    @classmethod
    def from_env(cls) -> Config:
        env = os.environ
        return cls(
            bind=env.get("VERRATER_BIND", cls.bind),
            redis_url=env.get("REDIS_URL") or None,
            redis_wait_replicas=_optional_int(env, "VERRATER_REDIS_WAIT_REPLICAS"),
            redis_wait_ms=_int(env, "VERRATER_REDIS_WAIT_MS", cls.redis_wait_ms),
            token_secret=env.get("VERRATER_TOKEN_SECRET") or cls.token_secret,
            token_ttl_seconds=_int(env, "VERRATER_TOKEN_TTL", cls.token_ttl_seconds),
            game_address=env.get("VERRATER_GAME_ADDR") or None,
            log_level=env.get("VERRATER_LOG_LEVEL", cls.log_level),
            grace_seconds=_float(env, "VERRATER_GRACE_SECONDS", cls.grace_seconds),
            bots=env.get("VERRATER_BOTS", cls.bots),
            metrics_port=_int(env, "VERRATER_METRICS_PORT", cls.metrics_port),
            log_format=env.get("VERRATER_LOG_FORMAT", cls.log_format),
            command_rate=_float(env, "VERRATER_COMMAND_RATE", cls.command_rate),
            lobby_rate=_float(env, "VERRATER_LOBBY_RATE", cls.lobby_rate),
            streams_per_player=_int(env, "VERRATER_STREAMS_PER_PLAYER", cls.streams_per_player),
            streams_per_peer=_int(env, "VERRATER_STREAMS_PER_PEER", cls.streams_per_peer),
            stream_backlog=_int(env, "VERRATER_STREAM_BACKLOG", cls.stream_backlog),
            chat_watchers_per_table=_int(
                env, "VERRATER_CHAT_WATCHERS_PER_TABLE", cls.chat_watchers_per_table
            ),
            trusted_proxies=env.get("VERRATER_TRUSTED_PROXIES", cls.trusted_proxies),
            guest_rate=_float(env, "VERRATER_GUEST_RATE", cls.guest_rate),
            guest_global_rate=_float(env, "VERRATER_GUEST_GLOBAL_RATE", cls.guest_global_rate),
            signin_rate=_float(env, "VERRATER_SIGNIN_RATE", cls.signin_rate),
            signin_peer_rate=_float(env, "VERRATER_SIGNIN_PEER_RATE", cls.signin_peer_rate),
            peer_tables=_int(env, "VERRATER_PEER_TABLES", cls.peer_tables),
            quick_match_turn_seconds=_int(
                env, "VERRATER_QUICK_MATCH_TURN_SECONDS", cls.quick_match_turn_seconds
            ),
            web_bind=env.get("VERRATER_WEB_BIND", cls.web_bind),
            web_origins=env.get("VERRATER_WEB_ORIGINS", cls.web_origins),
            lobby_address=env.get("VERRATER_LOBBY_ADDR") or None,
            ai_address=env.get("VERRATER_AI_ADDR") or None,
            notify_streams=_int(env, "VERRATER_NOTIFY_STREAMS", cls.notify_streams),
            notify_pending=_int(env, "VERRATER_NOTIFY_PENDING", cls.notify_pending),
            notify_outbound_maxlen=_int(
                env, "VERRATER_NOTIFY_OUTBOUND_MAXLEN", cls.notify_outbound_maxlen
            ),
            broker_url=env.get("VERRATER_BROKER_URL") or None,
            bot_queue=env.get("VERRATER_BOT_QUEUE", cls.bot_queue),
            task_visibility_seconds=_int(
                env, "VERRATER_TASK_VISIBILITY", cls.task_visibility_seconds
            ),
            bot_min_think_ms=_float(env, "VERRATER_BOT_MIN_THINK_MS", cls.bot_min_think_ms),
            bot_publish_gap_ms=_float(env, "VERRATER_BOT_PUBLISH_GAP_MS", cls.bot_publish_gap_ms),
            advertise_address=env.get("VERRATER_ADVERTISE_ADDR") or None,
            bot_resend_seconds=_float(env, "VERRATER_BOT_RESEND_SECONDS", cls.bot_resend_seconds),
            worker_concurrency=_int(env, "VERRATER_WORKER_CONCURRENCY", cls.worker_concurrency),
        )

    @property
    def redis_cluster(self) -> bool:
        return self.redis_url is not None and is_cluster_url(self.redis_url)

    @property
    def standalone_redis_url(self) -> str | None:
        """REDIS_URL when it names a standalone Redis (which can also be Celery's broker and
        result backend; a cluster cannot)."""
        return None if self.redis_cluster else self.redis_url

    @property
    def broker(self) -> str | None:
        """Celery's broker: VERRATER_BROKER_URL, else the event store's Redis (unless that is
        a cluster: Celery cannot use one)."""
        return self.broker_url or self.standalone_redis_url

    @property
    def wait_replicas(self) -> int:
        """Replicas an append waits for: VERRATER_REDIS_WAIT_REPLICAS, else 1 on a cluster."""
        if self.redis_wait_replicas is not None:
            return self.redis_wait_replicas
        return 1 if self.redis_cluster else 0

    def advertised(self, port: int) -> str | None:
        """VERRATER_ADVERTISE_ADDR as an address gRPC dials, for a replica serving `port`."""
        setting = self.advertise_address
        if not setting:
            return None
        if setting == "auto":
            name = socket.gethostname()
            try:
                setting = socket.gethostbyname(name)
            except OSError as error:
                raise ConfigError(
                    f"VERRATER_ADVERTISE_ADDR=auto: this host's name {name!r} does not "
                    f"resolve ({error}); set the replica's address instead"
                ) from None
        try:
            ip = ipaddress.ip_address(setting.strip("[]"))
        except ValueError:
            return setting if ":" in setting else f"{setting}:{port}"  # host:port, or a name
        return f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"

    @property
    def issuer(self) -> TokenIssuer:
        return TokenIssuer(self.token_secret, self.token_ttl_seconds)


def secured(config: Config, services: frozenset[str]) -> Config:
    """The configuration with a token secret safe for where it listens: a configured secret of
    at least MIN_SECRET_BYTES; without one, the development secret (public in the source) only
    while every port is on loopback, where only local processes reach it. Embedded mode on
    another address gets a random secret of its own (tokens end with the process); distributed
    mode, whose processes must share a secret, refuses to start."""
    if config.token_secret != DEVELOPMENT_SECRET:
        if len(config.token_secret.encode()) < MIN_SECRET_BYTES:
            raise SystemExit(
                f"VERRATER_TOKEN_SECRET is too short: use at least {MIN_SECRET_BYTES} random "
                "bytes (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(48))'`)"
            )
        return config
    if config.redis_url is not None or services != ALL_SERVICES:
        raise SystemExit(
            "refusing to run a distributed deployment with the development token secret: "
            "set VERRATER_TOKEN_SECRET"
        )
    # The web door reaches every service, so its port counts as theirs.
    exposed = [
        where for where in (config.bind, config.web_bind) if where and not is_loopback(where)
    ]
    if not exposed:
        return config
    log.warning(
        "VERRATER_TOKEN_SECRET is not set and %s is reachable from other hosts: tokens are "
        "signed with a random secret made for this process (they end when it stops); set "
        "VERRATER_TOKEN_SECRET to keep them across restarts",
        " and ".join(exposed),
    )
    return replace(config, token_secret=secrets.token_urlsafe(48))


def is_loopback(address: str) -> bool:
    """Whether `host:port` (or `[v6]:port`) listens on a loopback address only."""
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
