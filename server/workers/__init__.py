"""Work beside the web server: the bot runner and the analyser of finished games
(run by ``splendor serve`` or ``splendor bots``).

May import: server.players, server.live, server.games, server.store,
server.common, events/, bots/.
"""
