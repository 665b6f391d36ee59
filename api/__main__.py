"""`python -m api`: the Procfile's `web` process (api/server.py)."""

from api.server import main

if __name__ == "__main__":  # not when a worker process started by `--workers` imports it
    main()
