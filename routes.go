// Package core embeds the route table so that the binary always serves
// exactly the routes.yaml it was built from.
package core

import _ "embed"

// RoutesFile is the table's name in messages.
const RoutesFile = "routes.yaml"

// Routes is routes.yaml.
//
//go:embed routes.yaml
var Routes []byte
