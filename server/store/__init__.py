"""The event store and everything that talks to Redis: the clients (one Redis or a
Cluster), the command path's direct and public connections and the choice
between them (fast paths), durability (WAIT for a replica), the embedded Redis
and its availability, the archive's format, and the event store itself.

May import: server.common, events/.
"""
