"""The Piccolo app holding every Pressline table and its migrations."""

import os

from piccolo.conf.apps import AppConfig

from models.tables import (
    AdminFlash,
    AdminSession,
    ApiToken,
    Artwork,
    Contact,
    Customer,
    CustomerMessage,
    FailedLogin,
    IdempotencyKey,
    Invoice,
    NumberSequence,
    Order,
    OrderLine,
    PriceList,
    Sku,
    StageChange,
    StockMovement,
    User,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
    Workspace,
)

APP_CONFIG = AppConfig(
    app_name="models",
    migrations_folder_path=os.path.join(os.path.dirname(__file__), "migrations"),
    table_classes=[
        Workspace,
        User,
        ApiToken,
        PriceList,
        Customer,
        Contact,
        Sku,
        Order,
        OrderLine,
        StageChange,
        Invoice,
        Artwork,
        NumberSequence,
        CustomerMessage,
        IdempotencyKey,
        WebhookSubscription,
        WebhookEvent,
        WebhookDelivery,
        WebhookAttempt,
        AdminSession,
        FailedLogin,
        AdminFlash,
        StockMovement,
    ],
    migration_dependencies=[],
    commands=[],
)
