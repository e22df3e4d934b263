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
| `conflict.py`   | the last conflict in a line, and in full (the Tab key, the end screen) |
| `board.py`      | the ring of landscapes and its legend, fitted to the width             |
| `players.py`    | the players' table, fitted to the width                                |
| `render.py`     | pure functions from a scene to a frame of fixed regions (Rich Layout)  |
| `summaries.py`  | the end screen: final scores, the last conflict, replay and audit      |
| `terminal.py`   | full screen: alternate screen, keys one at a time, frames, resizes     |
| `session.py`    | the live loop: watch, draw, ask, submit; keys out of turn thrown away  |
| `shell.py`      | how the player's shell runs `verrater`, for the commands printed       |
| `cli.py`        | the `play` and `watch` subcommands, the resume menu, the end screen    |
"""
