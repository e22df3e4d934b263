"""Every word of the page in German and in English (web/src/i18n/*.json), read without npm.

A key missing in one catalog, a placeholder one language forgets, an enum value or a refusal
reason of the contract without words, or text written into the page's sources instead of the
catalogs: each fails here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from services.api.verrater.v1 import cards_pb2, errors_pb2, events_pb2, view_pb2
from tests.web.conftest import ROOT

SOURCES = ROOT / "web" / "src"
CATALOGS = {path.stem: path for path in sorted((SOURCES / "i18n").glob("*.json"))}
PLURAL_FORMS = {"one", "other"}
#: Words that are names in every language: the game's and the site's.
NAMES = {"Verräter", "Online"}
#: What follows a `}` in code rather than in JSX.
KEYWORDS = {"return", "const", "let", "else", "finally", "catch", "try", "if", "for", "while"}


def catalog(language: str) -> dict[str, str | dict[str, str]]:
    loaded: dict[str, str | dict[str, str]] = json.loads(CATALOGS[language].read_text())
    return loaded


def placeholders(entry: str | dict[str, str]) -> set[str]:
    forms = entry.values() if isinstance(entry, dict) else [entry]
    return {name for form in forms for name in re.findall(r"\{(\w+)\}", form)}


def test_the_page_speaks_german_and_english() -> None:
    assert set(CATALOGS) >= {"de", "en"}


@pytest.mark.parametrize("language", sorted(set(CATALOGS) - {"en"}))
def test_every_key_is_in_every_catalog(language: str) -> None:
    english, other = catalog("en"), catalog(language)
    assert sorted(set(english) - set(other)) == [], f"missing in {language}.json"
    assert sorted(set(other) - set(english)) == [], "missing in en.json"


@pytest.mark.parametrize("language", sorted(CATALOGS))
def test_each_entry_has_the_same_placeholders_and_plural_forms(language: str) -> None:
    english, other = catalog("en"), catalog(language)
    for key, entry in other.items():
        if key not in english:
            continue
        assert placeholders(entry) == placeholders(english[key]), key
        assert isinstance(entry, dict) == isinstance(english[key], dict), key
        if isinstance(entry, dict):
            assert set(entry) == PLURAL_FORMS, key
            assert all(entry.values()), key
        else:
            assert entry.strip(), key


ENUMS = {
    "house": cards_pb2.House,
    "land": cards_pb2.LandscapeType,
    "action": cards_pb2.ActionCard,
    "side": cards_pb2.BuildingSide,
    "phase": events_pb2.Phase,
    "bot": events_pb2.BotLevel,
    # What each bot level plays like, under the level picker (words.ts `levelStrength`).
    "level": events_pb2.BotLevel,
    "decision": view_pb2.DecisionKind,
    "violation": errors_pb2.ViolationCode,
}


def _short(enum_name: str, value_name: str) -> str:
    """`BOT_LEVEL_HARD` of BotLevel -> `HARD`, as the TypeScript generator names it."""
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum_name).upper() + "_"
    return value_name.removeprefix(prefix)


@pytest.mark.parametrize("language", sorted(CATALOGS))
def test_every_value_of_the_contracts_enums_has_words(language: str) -> None:
    """A value the contract gains (a new bot level) needs its words in every language."""
    words = catalog(language)
    missing = []
    for prefix, enum in ENUMS.items():
        for value_name in enum.keys():  # noqa: SIM118 (an EnumTypeWrapper)
            short = _short(enum.DESCRIPTOR.name, value_name)
            if short == "UNSPECIFIED" and prefix != "violation":
                continue
            if f"{prefix}.{short}" not in words:
                missing.append(f"{prefix}.{short}")
    assert missing == []


@pytest.mark.parametrize("language", sorted(CATALOGS))
def test_every_refusal_reason_of_the_clients_guide_has_words(language: str) -> None:
    table = (ROOT / "docs" / "CLIENTS.md").read_text()
    reasons = set(re.findall(r"^\| `([A-Z_]+)` \| [A-Z_]+ \|", table, re.MULTILINE))
    assert len(reasons) > 40
    words = catalog(language)
    assert sorted(r for r in reasons if f"reason.{r}" not in words) == []


def _sources(pattern: str = "*.ts*") -> list[Path]:
    return sorted(SOURCES.glob(pattern))


def test_every_key_the_sources_use_is_in_the_catalogs() -> None:
    english = catalog("en")
    used = {
        key for path in _sources() for key in re.findall(r"\bt\(\s*\"([\w.]+)\"", path.read_text())
    }
    assert used and sorted(used - set(english)) == []


#: Text of a JSX element: after a tag or an expression, up to the next tag or expression
#: (`>Words<`, `{name} wins<`, `>Who {name}`), without the characters of code (an arrow's
#: `=>`, a comparison's `&&`).
_PHRASE = r"[^<>{}\n=&|();\[\]]"
JSX_TEXT = re.compile(rf"(?:(?<!=)>|\}})\s*({_PHRASE}*[^\W\d_]{_PHRASE}*?)\s*[<{{]")
STRING_ATTRIBUTE = re.compile(r"\b(?:aria-label|title|placeholder|alt)=\"([^\"]+)\"")


@pytest.mark.parametrize("path", _sources("*.tsx"), ids=lambda path: path.name)
def test_no_words_are_written_into_the_sources(path: Path) -> None:
    """What a player reads comes from the catalogs, so every language has it."""
    text = path.read_text()
    written = [found for found in JSX_TEXT.findall(text) if found.strip() not in NAMES | KEYWORDS]
    written += STRING_ATTRIBUTE.findall(text)
    assert written == []


#: Keys made at run time from an enum value's or a refusal's name (words.ts, api.ts, verify.ts).
DYNAMIC = ("house.", "land.", "action.", "side.", "phase.", "bot.", "level.", "decision.",
           "reason.", "violation.", "verify.")  # fmt: skip


def test_every_key_of_the_catalogs_is_used() -> None:
    sources = "".join(path.read_text() for path in _sources())
    unused = [
        key for key in catalog("en") if f'"{key}"' not in sources and not key.startswith(DYNAMIC)
    ]
    assert unused == []
