package chaos

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// commit is what the test reads from one _delta_log/<v>.json.
type commit struct {
	version int64
	txns    []txnAction
	epochID string // commitInfo.operationParameters.epochId
	rows    int64  // sum of the adds' stats.numRecords
	adds    []string
}

type txnAction struct {
	AppID   string `json:"appId"`
	Version int64  `json:"version"`
}

// deltaLog reads a table's JSON commits as they appear. Commit files are
// immutable once published, so each is parsed once.
type deltaLog struct {
	dir     string
	commits []commit
}

var commitName = regexp.MustCompile(`^(\d{20})\.json$`)

// refresh parses the commits published since the last call and checks that
// the versions are contiguous from 0.
func (l *deltaLog) refresh() error {
	entries, err := os.ReadDir(filepath.Join(l.dir, "_delta_log"))
	if errors.Is(err, fs.ErrNotExist) {
		entries, err = nil, nil
	}
	if err != nil {
		return err
	}
	var versions []int64
	for _, e := range entries {
		if m := commitName.FindStringSubmatch(e.Name()); m != nil {
			v, err := strconv.ParseInt(m[1], 10, 64)
			if err != nil {
				return err
			}
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	for i, v := range versions {
		if v != int64(i) {
			return fmt.Errorf("_delta_log versions are not contiguous: %v", versions)
		}
	}
	for v := int64(len(l.commits)); v < int64(len(versions)); v++ {
		c, err := readCommit(filepath.Join(l.dir, "_delta_log", fmt.Sprintf("%020d.json", v)))
		if err != nil {
			return fmt.Errorf("commit %d: %w", v, err)
		}
		c.version = v
		l.commits = append(l.commits, c)
	}
	return nil
}

// rows is the number of rows the committed adds hold (the table is append-only).
func (l *deltaLog) rows() int64 {
	var n int64
	for _, c := range l.commits {
		n += c.rows
	}
	return n
}

func readCommit(path string) (commit, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return commit{}, err
	}
	var c commit
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var action struct {
			Add *struct {
				Path  string `json:"path"`
				Stats string `json:"stats"`
			} `json:"add"`
			Txn        *txnAction `json:"txn"`
			CommitInfo *struct {
				OperationParameters map[string]string `json:"operationParameters"`
			} `json:"commitInfo"`
		}
		if err := json.Unmarshal(sc.Bytes(), &action); err != nil {
			return commit{}, fmt.Errorf("action %q: %w", sc.Text(), err)
		}
		switch {
		case action.Add != nil:
			var st struct {
				NumRecords *int64 `json:"numRecords"`
			}
			if err := json.Unmarshal([]byte(action.Add.Stats), &st); err != nil || st.NumRecords == nil {
				return commit{}, fmt.Errorf("add without numRecords stats: %q (%v)", action.Add.Stats, err)
			}
			c.rows += *st.NumRecords
			c.adds = append(c.adds, action.Add.Path)
		case action.Txn != nil:
			c.txns = append(c.txns, *action.Txn)
		case action.CommitInfo != nil:
			c.epochID = action.CommitInfo.OperationParameters["epochId"]
		}
	}
	return c, sc.Err()
}

// plan is a sealed batch plan (CHECKPOINT/offsets/<id>.json).
type plan struct {
	BatchID int64 `json:"batchId"`
	Stream  string
	Files   []struct {
		Path string `json:"path"`
	} `json:"files"`
}

var planName = regexp.MustCompile(`^\d{20}\.json$`)

// countPlans counts the sealed plans in the checkpoint.
func countPlans(ckpt string) (int, error) {
	entries, err := os.ReadDir(filepath.Join(ckpt, "offsets"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	n := 0
	for _, e := range entries {
		if planName.MatchString(e.Name()) {
			n++
		}
	}
	return n, err
}

// readPlans reads every sealed plan, in batch order.
func readPlans(ckpt string) ([]plan, error) {
	n, err := countPlans(ckpt)
	if err != nil {
		return nil, err
	}
	plans := make([]plan, n)
	for i := range plans {
		data, err := os.ReadFile(filepath.Join(ckpt, "offsets", fmt.Sprintf("%020d.json", i)))
		if err != nil {
			return nil, fmt.Errorf("the plans are not contiguous: %w", err)
		}
		if err := json.Unmarshal(data, &plans[i]); err != nil {
			return nil, fmt.Errorf("plan %d: %w", i, err)
		}
		if plans[i].BatchID != int64(i) {
			return nil, fmt.Errorf("plan %d holds batch %d", i, plans[i].BatchID)
		}
	}
	return plans, nil
}

// schemaVersions counts the versions of the schema history
// (CHECKPOINT/_schemas/<n>), leaving out temporary files.
func schemaVersions(ckpt string) (int, error) {
	entries, err := os.ReadDir(filepath.Join(ckpt, "_schemas"))
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err == nil {
			n++
		}
	}
	return n, err
}

// tempPrefix is the prefix of infra/localfs's temporary files: a writer
// killed before publishing leaves one behind, harmlessly.
const tempPrefix = ".tributary-tmp-"

// listFiles returns the regular files under dir (relative, slash-separated)
// and, separately, the temporary files among them.
func listFiles(dir string) (files, temps []string, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(d.Name(), tempPrefix) {
			temps = append(temps, rel)
		} else {
			files = append(files, rel)
		}
		return nil
	})
	return files, temps, err
}
