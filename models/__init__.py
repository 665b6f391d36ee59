"""Pressline's data: Piccolo tables, migrations and the domain operations that change them."""
