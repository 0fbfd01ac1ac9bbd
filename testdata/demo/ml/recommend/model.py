"""A co-occurrence model: items bought together are recommended together."""

from .features import basket_features

# TODO: learn the pairs from past orders instead of this table.
PAIRS = {
    "mug": ["coffee", "coaster"],
    "coffee": ["mug", "filter"],
    "tea": ["mug", "honey"],
}


def recommend(lines, limit=3):
    """Return up to limit skus to suggest for a basket, best first."""
    basket = basket_features(lines)
    scores = {}
    for sku, quantity in basket.items():
        for other in PAIRS.get(sku, []):
            if other not in basket:
                scores[other] = scores.get(other, 0) + quantity
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    return [sku for sku, _ in ranked[:limit]]
