"""The admin's router: its pages, static files, middleware and error pages, under /admin."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, Router, get
from litestar.middleware import DefineMiddleware
from litestar.params import PathParameter
from litestar.static_files import create_static_files_router

from api.admin import (
    customer_addresses,
    deliveries,
    invoice_settings,
    login,
    order_proofs,
    orders,
    overview,
    packing_slip,
    payment_voids,
    price_preview,
    pricing,
    settings,
    staff,
    stream,
    tokens,
    webhooks,
    work_order,
)
from api.admin.account import AccountController
from api.admin.customers import CustomerController
from api.admin.inventory import InventoryController
from api.admin.invoices import InvoiceController
from api.admin.notices import banner
from api.admin.pages import EXCEPTION_HANDLERS, HERE
from api.admin.security import (
    HEADERS,
    PREFIX,
    RESPONSE_HEADERS,
    AdminCSRFMiddleware,
    SessionMiddleware,
)
from api.path_ids import ids_in_range, path_can_exist, query_is_text
from models.errors import NotFoundError


@get("/{rest:path}", include_in_schema=False)
async def unknown_page(
    request: Request[Any, Any, Any], rest: Annotated[str, PathParameter()]
) -> None:
    """Any other address under /admin: the admin's own 404 page."""
    raise NotFoundError(rest)


async def with_headers(response: Response[Any]) -> Response[Any]:
    """Static files are answered past the router's own response headers."""
    response.headers.update(HEADERS)
    return response


def admin_router() -> Router:
    return Router(
        path=PREFIX,
        route_handlers=[
            login.LoginController,
            overview.OverviewController,
            tokens.TokenController,
            staff.StaffController,
            webhooks.WebhookController,
            deliveries.DeliveryController,
            settings.SettingsController,
            pricing.PricingController,
            invoice_settings.InvoiceSettingsController,
            price_preview.PricePreviewController,
            order_proofs.OrderArtworkController,
            banner,
            AccountController,
            CustomerController,
            customer_addresses.CustomerAddressController,
            InventoryController,
            InvoiceController,
            payment_voids.PaymentConfirmController,
            orders.OrderController,
            work_order.WorkOrderController,
            packing_slip.PackingSlipController,
            stream.stream,
            create_static_files_router(
                path="/static", directories=[HERE / "static"], after_request=with_headers
            ),
            unknown_page,
        ],
        # Outermost first: the session is looked up first, since the CSRF token is bound to it.
        middleware=[DefineMiddleware(SessionMiddleware), AdminCSRFMiddleware],
        exception_handlers=EXCEPTION_HANDLERS,
        guards=[ids_in_range, path_can_exist, query_is_text],
        response_headers=RESPONSE_HEADERS,
        include_in_schema=False,
    )
