"""`verrater chat-reports`: the reported chat messages, for operators, oldest first.

Reads the reports stream on the deployment's Redis (`REDIS_URL`, or `--redis-url`). Prints one
report a line (`--json`: one JSON object a line), and the id to pass as `--after` to see only
what came since. Exit codes: 0 listed (maybe none), 2 no Redis to read.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from datetime import UTC, datetime

from .model import Report
from .redis_store import RedisChat


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register `chat-reports` on the `verrater` command's subparsers."""
    reports = commands.add_parser(
        "chat-reports", help="list the chat messages players reported, oldest first"
    )
    reports.add_argument("--redis-url", help="the Redis (default: REDIS_URL)")
    reports.add_argument(
        "--after", default="0-0", metavar="ID", help="only reports after this report id"
    )
    reports.add_argument(
        "--limit", type=int, default=100, help="at most this many reports (default 100)"
    )
    reports.add_argument("--json", action="store_true", help="one JSON object a line")
    reports.set_defaults(handler=_chat_reports)


def _when(millis: int) -> str:
    return datetime.fromtimestamp(millis / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def as_dict(report: Report) -> dict[str, object]:
    message = report.message
    return {
        "report_id": report.report_id,
        "reported_at": _when(report.reported_at_ms),
        "reporter_id": report.reporter_id,
        "note": report.note,
        "table_id": message.table_id,
        "cursor": message.cursor,
        "channel": str(message.channel),
        "sender_id": message.sender_id,
        "display_name": message.display_name,
        "sent_at": _when(message.sent_at_ms),
        "text": message.text,
    }


def as_line(report: Report) -> str:
    message = report.message
    note = f' (note: "{report.note}")' if report.note else ""
    return (
        f"{report.report_id}  {_when(report.reported_at_ms)}  table {message.table_id} "
        f"{message.channel} {message.cursor}  {message.display_name} ({message.sender_id}): "
        f'"{message.text}"  reported by {report.reporter_id}{note}'
    )


def _chat_reports(args: argparse.Namespace) -> int:
    url = args.redis_url or os.environ.get("REDIS_URL")
    if not url:
        print(
            "verrater chat-reports: no Redis: set REDIS_URL or pass --redis-url (an embedded "
            "server keeps its reports in its own memory)",
            file=sys.stderr,
        )
        return 2

    async def listed() -> list[Report]:
        store = RedisChat(url)
        try:
            return await store.reports(args.after, args.limit)
        finally:
            await store.close()

    for report in asyncio.run(listed()):
        print(json.dumps(as_dict(report), ensure_ascii=False) if args.json else as_line(report))
    return 0
