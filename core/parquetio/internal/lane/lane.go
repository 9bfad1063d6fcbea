// Package lane runs jobs in the order they are submitted on a goroutine
// of their own, without the submitter waiting for them: the Parquet
// writer's share of a batch's columns encoded while the writing goroutine
// goes on (parquetio's asyncLane).
package lane

import (
	"cmp"
	"sync"
)

// Queue runs submitted jobs one after the other, in order, on one
// goroutine that runs while there are jobs and ends when there are none
// (an abandoned Queue leaves no goroutine behind). At most a fixed number
// of jobs are pending: Submit waits for room.
type Queue struct {
	sem     chan struct{}
	pending sync.WaitGroup
	mu      sync.Mutex
	jobs    []func() error
	active  bool  // a goroutine runs the jobs
	err     error // the first job's error
}

// New returns a Queue of at most n pending jobs (at least 1).
func New(n int) *Queue {
	return &Queue{sem: make(chan struct{}, max(n, 1))}
}

// Submit queues job, waiting while the queue is full.
func (q *Queue) Submit(job func() error) {
	q.sem <- struct{}{}
	q.pending.Add(1)
	q.mu.Lock()
	q.jobs = append(q.jobs, job)
	start := !q.active
	q.active = true
	q.mu.Unlock()
	if start {
		go q.run()
	}
}

// run runs the queued jobs in order until there are none.
func (q *Queue) run() {
	for {
		q.mu.Lock()
		if len(q.jobs) == 0 {
			q.active = false
			q.mu.Unlock()
			return
		}
		job := q.jobs[0]
		q.jobs[0] = nil
		q.jobs = q.jobs[1:]
		q.mu.Unlock()
		err := job()
		q.mu.Lock()
		q.err = cmp.Or(q.err, err)
		q.mu.Unlock()
		<-q.sem
		q.pending.Done()
	}
}

// Err returns the first error a job returned so far.
func (q *Queue) Err() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.err
}

// Wait waits until every job submitted has run and returns the first
// error a job returned.
func (q *Queue) Wait() error {
	q.pending.Wait()
	return q.Err()
}
