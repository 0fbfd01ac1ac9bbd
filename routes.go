// Package core embeds the route tables so that the binary always serves
// exactly the routes.yaml it was built from.
package core

import _ "embed"

// RoutesFile is the server's table's name in messages.
const RoutesFile = "routes.yaml"

// Routes is routes.yaml: every route of the server.
//
//go:embed routes.yaml
var Routes []byte

// SnapshotRoutesFile is the name of the table of `core open --serve`.
const SnapshotRoutesFile = "snapshot.routes.yaml"

// SnapshotRoutes is snapshot.routes.yaml: the two routes of the loopback
// server `core open --serve` starts.
//
//go:embed snapshot.routes.yaml
var SnapshotRoutes []byte
