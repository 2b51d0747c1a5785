"""The edge: the Starlette app and its wiring, HTTP routes, the game and pairing
websockets, errors as answers, middleware, rate limits, connections (uvicorn's
protocols), drain, metrics and logs.

May import: every other package of server/ (not server.cli), events/, bots/.
"""
