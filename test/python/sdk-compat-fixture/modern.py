import requests


def f(x: int | None) -> None:
    pass
