"""Settings → Pricing: the workspace's price list as grids (owners edit, staff read), saved
whole by the domain's `models.pricing.store.replace`, as `PUT /api/v1/pricing` does. The form
and its buttons are api/admin/pricing_forms.py; a save from a form older than the stored
price list is refused (its version is the document's ETag).

The grids' code is imported when the page is first used, not when the web process starts: a
process that never shows the page does not hold it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from litestar import Controller, Request, get, post
from litestar.response import Redirect, Template

from api.admin import flash
from api.admin.forms import form, text
from api.admin.pages import page
from api.admin.security import PREFIX, owner_only
from models import accounts
from models.errors import InvalidFields, StaleError
from models.pricing import store
from models.pricing.document import PricingDocument

if TYPE_CHECKING:
    from api.admin.pricing_forms import Target

URL = f"{PREFIX}/settings/pricing"


class PricingController(Controller):
    path = "/settings/pricing"

    async def _page(
        self,
        request: Request[Any, Any, Any],
        typed: dict[str, Any],
        *,
        status_code: int = 200,
        errors: dict[str, list[str]] | None = None,
        message: str = "",
        focus: str | None = None,
        notice: str = "",
    ) -> Template:
        from api.admin import pricing_forms as grids

        workspace = await accounts.get_workspace(request.user.workspace_id)
        return page(
            request, "settings_pricing.html", status_code=status_code, here="settings",
            title="Pricing", typed=typed, matrices=grids.for_display(typed),
            choices=grids.matrix_choices(typed), methods=grids.METHODS,
            errors=errors or {}, message=message,
            focus=focus, notice=notice, currency=workspace.currency,
        )  # fmt: skip

    @get("/")
    async def show_pricing(self, request: Request[Any, Any, Any]) -> Template:
        from api.admin import pricing_forms as grids

        shown = await flash.take(request)
        document = await store.read(request.user.workspace_id)
        typed = grids.typed_from(document, version_tag=grids.version(document))
        return await self._page(request, typed, notice=shown.notice)

    @post("/", status_code=303, guards=[owner_only])
    async def save_pricing(self, request: Request[Any, Any, Any]) -> Template | Redirect:
        """Every button posts the whole form: `action` says which (a row, column or matrix
        added or removed: the form again, changed by one), or `save`."""
        from api.admin import pricing_forms as grids

        fields = await form(request)
        typed = grids.typed_pricing(fields)
        action = text(fields, "action") or "save"
        if action != "save":
            typed, focus = grids.after_action(action, typed)
            return await self._page(request, typed, focus=focus)
        typed = grids.filled(typed)
        targets: dict[str, Target] = {}
        expected = typed["version"]

        def unchanged(current: PricingDocument) -> None:
            if grids.version(current) != expected:
                raise StaleError(grids.STALE)

        try:
            document, targets = grids.document_from(typed, request.user.currency)
            await store.replace(request.user.workspace_id, document, precondition=unchanged)
        except grids.Refused as refused:
            return await self._refused(request, typed, refused.errors, refused.targets)
        except InvalidFields as invalid:  # the rules between fields (PricingDocument.check)
            return await self._refused(request, typed, invalid.errors, targets)
        except StaleError as stale:
            return await self._page(request, typed, status_code=409, message=stale.message)
        return await flash.redirect(request, URL, grids.SAVED)

    async def _refused(
        self,
        request: Request[Any, Any, Any],
        typed: dict[str, Any],
        errors: dict[str, list[str]],
        targets: dict[str, Target],
    ) -> Template:
        from api.admin import pricing_forms as grids

        shown = grids.shown_errors(errors, targets)
        count = grids.error_count(shown)
        more = f" (and {count - 1} more, shown beside their fields)" if count > 1 else ""
        message = f"The price list was not saved. {grids.first_error(shown)}{more}"
        return await self._page(request, typed, status_code=422, errors=shown, message=message)
