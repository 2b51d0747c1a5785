"""E-mail (docs/email.md): accounts' verified addresses, the e-mails of
correspondence games' turns and of tournaments, and the worker that sends them
through SMTP from a Redis outbox, never twice."""
