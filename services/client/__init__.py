"""The terminal client: `verrater play` and `verrater watch`.

A client of the public gRPC API only: it imports the generated `services.api.verrater.v1`
modules, never the server's code (a test parses every module here to keep it that way), so it
sees the game exactly as any other client would.

| module          | what it is                                                             |
|-----------------|------------------------------------------------------------------------|
| `connection.py` | the channel, the caller's token, retries with backoff, resumable Watch |
| `lobby.py`      | from a name to a seat token: register, open / join / quick-match       |
| `chronicle.py`  | what the events tell beyond the view (names, points, final bonus)      |
| `words.py`      | the game in words: options, status line, reading what a person types   |
| `render.py`     | pure functions from (view, ruleset, chronicle) to Rich renderables     |
| `session.py`    | the live loop: watch, render, ask, submit                              |
| `cli.py`        | the `play` and `watch` subcommands                                     |
"""
