import unittest

from recommend import recommend
from recommend.features import basket_features


class RecommendTest(unittest.TestCase):
    def test_features_add_up_quantities(self):
        lines = [{"sku": "mug", "quantity": 1}, {"sku": "mug", "quantity": 2}]
        self.assertEqual(basket_features(lines), {"mug": 3})

    def test_items_already_in_the_basket_are_not_suggested(self):
        lines = [{"sku": "mug", "quantity": 2}, {"sku": "coffee", "quantity": 1}]
        self.assertEqual(recommend(lines), ["coaster", "filter"])


if __name__ == "__main__":
    unittest.main()
