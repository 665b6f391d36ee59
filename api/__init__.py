"""Pressline's HTTP API: the Litestar app, its controllers, auth, errors and schemas."""
