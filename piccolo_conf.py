"""Piccolo's configuration: the engine is chosen from DATABASE_URL (models.settings)."""

from piccolo.conf.apps import AppRegistry

from models.db import bound, engine_from_url
from models.settings import get_settings

DB = bound() or engine_from_url(get_settings().database_url)

APP_REGISTRY = AppRegistry(apps=["models.piccolo_app"])
