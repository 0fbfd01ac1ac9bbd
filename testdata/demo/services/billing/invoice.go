// Package billing turns orders into invoices. Its JSON shape is described by
// schemas/invoice.schema.json.
package billing

import (
	"fmt"

	"example.com/demo/libs/util"
)

// Line is one item on an invoice.
type Line struct {
	SKU      string     `json:"sku"`
	Quantity int        `json:"quantity"`
	Price    util.Cents `json:"price"`
}

// Invoice is what a customer owes for one order.
type Invoice struct {
	Number string     `json:"number"`
	Lines  []Line     `json:"lines"`
	Tax    util.Cents `json:"tax"`
	Total  util.Cents `json:"total"`
}

// TaxPercent is the flat tax rate of the demo shop.
// TODO: apply tax rules per region.
const TaxPercent = 19

// New builds invoice number seq for customer from its lines.
func New(customer string, seq int, lines []Line) Invoice {
	var net util.Cents
	for _, l := range lines {
		net += l.Price * util.Cents(l.Quantity)
	}
	tax := net.Percent(TaxPercent)
	return Invoice{
		Number: fmt.Sprintf("%s-%05d", util.Slugify(customer), seq),
		Lines:  lines,
		Tax:    tax,
		Total:  net + tax,
	}
}
