"""The ``splendor`` command line: the server's tools and the client's under one name.
It sits above both, so that ``server/`` never imports ``client/``."""
