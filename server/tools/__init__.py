"""An operator's commands beside the servers: export and import, the lobby's
rebuild, the ratings' rebuild (and the mending every server does at start), and the
list of refusal keys in docs/reasons.md (``reasons_doc``).

May import: server.workers, server.players, server.live, server.games,
server.store, server.common, events/.
"""
