"""What every layer of the server uses: its settings, the protocol's errors, the
wire shapes of requests and events, and background loops.

May import: events/ (the domain) and libraries; nothing else of server/.
"""
