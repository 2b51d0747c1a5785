"""What a process pushes to the sockets watching its games: hubs, each audience's
views and JSON patches, the tailer that reads other processes' events,
presence, the games' signals, and the socket writers below ASGI.

May import: server.games, server.store, server.common, events/.
"""
