package billing

import "testing"

func TestNewAddsTax(t *testing.T) {
	inv := New("Blue Mug Co", 7, []Line{{SKU: "mug", Quantity: 2, Price: 500}})
	if inv.Number != "blue-mug-co-00007" {
		t.Errorf("Number = %q", inv.Number)
	}
	if inv.Tax != 190 || inv.Total != 1190 {
		t.Errorf("Tax, Total = %v, %v", inv.Tax, inv.Total)
	}
}
