"""Turn a basket (see schemas/order.schema.json) into model features."""


def basket_features(lines):
    """Return {sku: quantity} for the lines of an order."""
    features = {}
    for line in lines:
        features[line["sku"]] = features.get(line["sku"], 0) + line["quantity"]
    return features
