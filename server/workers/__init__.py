"""Work beside the web server: the bot runner and the analysers of finished games
(run by ``splendor serve`` or ``splendor bots``), and ``splendor analyse``'s worker
of analysers alone.

May import: server.players, server.live, server.games, server.store,
server.common, events/, bots/.
"""
