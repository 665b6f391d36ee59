"""Prices the shop sets once: the price list (`document`), how an order's items are priced
from it (`compute`), what each line's price is made of (`breakdown`), and where the price list
is kept and read (`store`)."""
