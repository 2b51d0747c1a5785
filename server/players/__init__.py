"""Players: accounts and their sessions, profiles, ratings (and the pure rating
model), and quick pairing (pure rules, Redis pools, the desk).

May import: server.live, server.games, server.store, server.common, events/.
"""
