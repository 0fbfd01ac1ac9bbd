// Command api is the demo shop's HTTP API: it checks the session token with
// auth and answers with invoices from billing.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"net/http"
	"strings"
	"time"

	"example.com/demo/services/auth"
	"example.com/demo/services/billing"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "listen address")
	flag.Parse()
	srv := &server{secret: []byte("demo-secret"), now: time.Now}
	log.Printf("api listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, srv.routes()))
}

type server struct {
	secret []byte
	now    func() time.Time
}

func (s *server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /api/invoices/{seq}", s.invoice)
	return mux
}

func (s *server) invoice(w http.ResponseWriter, r *http.Request) {
	user, err := auth.Verify(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), s.secret, s.now())
	if err != nil {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	inv := billing.New(user, 1, []billing.Line{{SKU: "mug", Quantity: 1, Price: 1200}})
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(inv)
}
