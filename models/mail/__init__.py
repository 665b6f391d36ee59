"""Email: what is sent (templates, composition), to whom, and the sending queue's rules."""
