module chat/embedded-store

go 1.25.0

require (
	github.com/256dpi/lungo v0.4.0
	github.com/tidwall/btree v1.8.1
	go.mongodb.org/mongo-driver v1.17.9
)

require github.com/shopspring/decimal v1.4.0 // indirect
