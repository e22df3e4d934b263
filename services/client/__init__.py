"""The terminal client: `verrater play` and `verrater watch`.

A client of the public gRPC API only: it imports the generated `services.api.verrater.v1`
modules, never the server's code (a test parses every module here to keep it that way), so it
sees the game exactly as any other client would.

| module          | what it is                                                             |
|-----------------|------------------------------------------------------------------------|
| `identity.py`   | the stored player id and credential, one per server (0600)             |
| `connection.py` | the channel, tokens that renew themselves, retries, resumable streams  |
| `lobby.py`      | sign in or register, running games to resume, a table, a seat token    |
| `chronicle.py`  | what the events tell beyond the view (names, points, final bonus)      |
| `words.py`      | the game in words: options, status line, reading what a person types   |
| `stakes.py`     | what the conflict is worth: VP scales, backers, totals so far          |
| `clock.py`      | the turn clock against the server's clock                              |
| `render.py`     | pure functions from a scene to a frame of fixed regions (Rich Layout)  |
| `terminal.py`   | full screen: alternate screen, keys one at a time, frames, resizes     |
| `session.py`    | the live loop: watch, draw, ask, submit; keys out of turn thrown away  |
| `cli.py`        | the `play` and `watch` subcommands, the resume menu, the end screen    |
"""
