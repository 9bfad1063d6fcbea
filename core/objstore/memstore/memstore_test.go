package memstore_test

import (
	"testing"

	"github.com/tributary-io/tributary/core/objstore/memstore"
	"github.com/tributary-io/tributary/core/objstore/objstoretest"
)

func TestConformance(t *testing.T) {
	objstoretest.RunConformanceTests(t, func(t *testing.T) objstoretest.Harness {
		return objstoretest.Harness{Store: memstore.New()}
	})
}

func TestLevelLister(t *testing.T) {
	objstoretest.RunLevelListerTests(t, func(t *testing.T) objstoretest.Harness {
		return objstoretest.Harness{Store: memstore.New()}
	})
}
