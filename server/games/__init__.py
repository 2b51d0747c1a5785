"""Games: the service that turns commands into events, the projections it keeps,
the seats and their tokens, the lobby and its keeper, the clocks (timekeeper),
rematches, public records (export/import format) and the archiver.

May import: server.store, server.common, events/.
"""
