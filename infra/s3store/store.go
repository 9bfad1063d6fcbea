package s3store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/tributary-io/tributary/core/objstore"
	"github.com/tributary-io/tributary/infra/internal/ctxio"
)

// Defaults for the options.
const (
	// DefaultPageSize is the MaxKeys of each ListObjectsV2 request.
	DefaultPageSize = 1000
	// DefaultSpoolThreshold is how much of a non-seekable body is buffered
	// in memory before spooling to a temporary file.
	DefaultSpoolThreshold = 8 << 20
	// DefaultConflictRetries is how often PutIfAbsent retries a 409
	// ConditionalRequestConflict.
	DefaultConflictRetries = 5
)

// Option configures a Store.
type Option func(*Store)

// WithPageSize sets MaxKeys for each ListObjectsV2 request (1..1000).
func WithPageSize(n int) Option {
	return func(s *Store) { s.pageSize = int32(min(max(n, 1), 1000)) }
}

// WithSpoolThreshold sets how many bytes of a non-seekable body are kept in
// memory; larger bodies are spooled to a temporary file.
func WithSpoolThreshold(n int64) Option {
	return func(s *Store) { s.spoolThreshold = max(n, 0) }
}

// WithSpoolDir sets the directory for spool files (default os.TempDir()).
func WithSpoolDir(dir string) Option {
	return func(s *Store) { s.spoolDir = dir }
}

// WithConflictRetries sets how often PutIfAbsent retries S3's 409
// ConditionalRequestConflict before giving up.
func WithConflictRetries(n int) Option {
	return func(s *Store) { s.conflictRetries = max(n, 0) }
}

// Store is an objstore.Store over one S3 bucket and root prefix. It is safe
// for concurrent use.
type Store struct {
	client          *s3.Client
	bucket          string
	prefix          string // "" or ends in '/'
	pageSize        int32
	spoolThreshold  int64
	spoolDir        string
	conflictRetries int
}

var _ objstore.Store = (*Store)(nil)

// New returns a store for bucket rooted at prefix ("" for the whole bucket;
// leading and trailing slashes are ignored). It fails if bucket is empty or
// prefix is not a valid key path.
func New(client *s3.Client, bucket, prefix string, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, errors.New("s3store: nil S3 client")
	}
	if bucket == "" {
		return nil, errors.New("s3store: empty bucket name")
	}
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		if err := objstore.ValidateKey(prefix); err != nil {
			return nil, fmt.Errorf("s3store: root prefix: %w", err)
		}
		prefix += "/"
	}
	s := &Store{
		client:          client,
		bucket:          bucket,
		prefix:          prefix,
		pageSize:        DefaultPageSize,
		spoolThreshold:  DefaultSpoolThreshold,
		conflictRetries: DefaultConflictRetries,
	}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Bucket returns the bucket name.
func (s *Store) Bucket() string { return s.bucket }

// Prefix returns the root prefix ("" or ending in '/').
func (s *Store) Prefix() string { return s.prefix }

// String returns the store's location as an s3:// URL.
func (s *Store) String() string { return "s3://" + s.bucket + "/" + s.prefix }

func (s *Store) fullKey(key string) (string, error) {
	if err := objstore.ValidateKey(key); err != nil {
		return "", fmt.Errorf("s3store: %w", err)
	}
	return s.prefix + key, nil
}

// classify maps S3 errors to the objstore sentinels, wrapping the original.
func classify(err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch ae.ErrorCode() {
		case "NoSuchKey", "NotFound":
			return fmt.Errorf("%w: %w", objstore.ErrNotFound, err)
		case "NoSuchBucket":
			return err
		}
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotFound {
		if ae == nil || ae.ErrorCode() != "NoSuchBucket" {
			return fmt.Errorf("%w: %w", objstore.ErrNotFound, err)
		}
	}
	return err
}

func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func httpStatus(err error) int {
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		return re.HTTPStatusCode()
	}
	return 0
}

// Get opens the object for streaming reads.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	fk, err := s.fullKey(key)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &fk})
	if err != nil {
		return nil, fmt.Errorf("s3store: get %q: %w", key, classify(err))
	}
	return out.Body, nil
}

// Head returns the object's metadata.
func (s *Store) Head(ctx context.Context, key string) (objstore.ObjectInfo, error) {
	fk, err := s.fullKey(key)
	if err != nil {
		return objstore.ObjectInfo{}, err
	}
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &s.bucket, Key: &fk})
	if err != nil {
		return objstore.ObjectInfo{}, fmt.Errorf("s3store: head %q: %w", key, classify(err))
	}
	return objstore.ObjectInfo{
		Key:     key,
		Size:    aws.ToInt64(out.ContentLength),
		ETag:    etag(out.ETag),
		ModTime: aws.ToTime(out.LastModified),
	}, nil
}

// Put writes the object, replacing any existing one.
func (s *Store) Put(ctx context.Context, key string, r io.Reader) error {
	fk, err := s.fullKey(key)
	if err != nil {
		return err
	}
	body, size, cleanup, err := s.rewindable(ctx, r)
	if err != nil {
		return fmt.Errorf("s3store: put %q: %w", key, err)
	}
	defer cleanup()
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &fk, Body: body, ContentLength: &size})
	if err != nil {
		return fmt.Errorf("s3store: put %q: %w", key, err)
	}
	return nil
}

// PutIfAbsent writes the object only if the key is free, using
// If-None-Match: *. See the package documentation for 409 handling.
func (s *Store) PutIfAbsent(ctx context.Context, key string, r io.Reader) error {
	fk, err := s.fullKey(key)
	if err != nil {
		return err
	}
	body, size, cleanup, err := s.rewindable(ctx, r)
	if err != nil {
		return fmt.Errorf("s3store: put-if-absent %q: %w", key, err)
	}
	defer cleanup()
	start, err := body.Seek(0, io.SeekCurrent)
	if err != nil {
		return fmt.Errorf("s3store: put-if-absent %q: body offset: %w", key, err)
	}
	for attempt := 0; ; attempt++ {
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket: &s.bucket, Key: &fk, Body: body, ContentLength: &size,
			IfNoneMatch: aws.String("*"),
		})
		if err == nil {
			return nil
		}
		code, status := errorCode(err), httpStatus(err)
		if code == "PreconditionFailed" || status == http.StatusPreconditionFailed {
			return fmt.Errorf("s3store: put-if-absent %q: %w: %w", key, objstore.ErrExists, err)
		}
		if (code == "ConditionalRequestConflict" || status == http.StatusConflict) && attempt < s.conflictRetries {
			if _, serr := body.Seek(start, io.SeekStart); serr != nil {
				return fmt.Errorf("s3store: put-if-absent %q: rewinding body: %w", key, serr)
			}
			if werr := ctxio.Sleep(ctx, time.Duration(10<<attempt)*time.Millisecond); werr != nil {
				return fmt.Errorf("s3store: put-if-absent %q: %w", key, werr)
			}
			continue
		}
		return fmt.Errorf("s3store: put-if-absent %q: %w", key, err)
	}
}

// rewindable returns r as a seekable body with its remaining size. A
// non-seekable r is read to the end first (memory, then a spool file).
func (s *Store) rewindable(ctx context.Context, r io.Reader) (io.ReadSeeker, int64, func(), error) {
	nop := func() {}
	if err := ctx.Err(); err != nil {
		return nil, 0, nop, err
	}
	if rs, ok := r.(io.ReadSeeker); ok {
		cur, err := rs.Seek(0, io.SeekCurrent)
		if err == nil {
			end, err := rs.Seek(0, io.SeekEnd)
			if err == nil {
				if _, err := rs.Seek(cur, io.SeekStart); err != nil {
					return nil, 0, nop, fmt.Errorf("rewinding body: %w", err)
				}
				return rs, end - cur, nop, nil
			}
		}
		// Not really seekable (e.g. a pipe behind *os.File): spool it.
	}
	var buf bytes.Buffer
	n, err := ctxio.Copy(ctx, &buf, io.LimitReader(r, s.spoolThreshold+1), 64<<10)
	if err != nil {
		return nil, 0, nop, err
	}
	if n <= s.spoolThreshold {
		return bytes.NewReader(buf.Bytes()), n, nop, nil
	}
	f, err := os.CreateTemp(s.spoolDir, "s3store-spool-*")
	if err != nil {
		return nil, 0, nop, fmt.Errorf("creating spool file: %w", err)
	}
	cleanup := func() { f.Close(); os.Remove(f.Name()) }
	if _, err := f.Write(buf.Bytes()); err != nil {
		cleanup()
		return nil, 0, nop, fmt.Errorf("writing spool file %s: %w", f.Name(), err)
	}
	m, err := ctxio.Copy(ctx, f, r, 64<<10)
	if err != nil {
		cleanup()
		return nil, 0, nop, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, 0, nop, fmt.Errorf("rewinding spool file %s: %w", f.Name(), err)
	}
	return f, n + m, cleanup, nil
}

// Copy copies the object at src to dst with CopyObject.
func (s *Store) Copy(ctx context.Context, src, dst string) error {
	fsrc, err := s.fullKey(src)
	if err != nil {
		return err
	}
	fdst, err := s.fullKey(dst)
	if err != nil {
		return err
	}
	if src == dst {
		// S3 refuses a copy onto itself without changes; it is a no-op.
		if _, err := s.Head(ctx, src); err != nil {
			return fmt.Errorf("s3store: copy %q to itself: %w", src, err)
		}
		return nil
	}
	_, err = s.client.CopyObject(ctx, &s3.CopyObjectInput{
		Bucket:     &s.bucket,
		Key:        &fdst,
		CopySource: aws.String(copySource(s.bucket, fsrc)),
	})
	if err != nil {
		return fmt.Errorf("s3store: copy %q to %q: %w", src, dst, classify(err))
	}
	return nil
}

// copySource encodes bucket/key for the x-amz-copy-source header: every
// byte except unreserved characters and '/' is percent-encoded (including
// '+', which S3 would otherwise read as a space).
func copySource(bucket, key string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString(bucket)
	b.WriteByte('/')
	for i := 0; i < len(key); i++ {
		c := key[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			c == '-', c == '_', c == '.', c == '~', c == '/':
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// Delete removes the object; S3 treats a missing key as success.
func (s *Store) Delete(ctx context.Context, key string) error {
	fk, err := s.fullKey(key)
	if err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &fk}); err != nil {
		if errors.Is(classify(err), objstore.ErrNotFound) {
			return nil
		}
		return fmt.Errorf("s3store: delete %q: %w", key, err)
	}
	return nil
}

// List yields the objects matching opts in lexical key order.
func (s *Store) List(ctx context.Context, opts objstore.ListOptions) iter.Seq2[objstore.ObjectInfo, error] {
	return func(yield func(objstore.ObjectInfo, error) bool) {
		prefix := s.prefix + opts.Prefix
		var startAfter *string
		if opts.StartAfter != "" {
			startAfter = aws.String(s.prefix + opts.StartAfter)
		}
		for {
			out, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
				Bucket:       &s.bucket,
				Prefix:       aws.String(prefix),
				StartAfter:   startAfter,
				MaxKeys:      aws.Int32(s.pageSize),
				EncodingType: types.EncodingTypeUrl,
			})
			if err != nil {
				yield(objstore.ObjectInfo{}, fmt.Errorf("s3store: list %q: %w", opts.Prefix, err))
				return
			}
			encoded := out.EncodingType == types.EncodingTypeUrl
			for _, obj := range out.Contents {
				raw := aws.ToString(obj.Key)
				if encoded {
					if raw, err = url.QueryUnescape(raw); err != nil {
						yield(objstore.ObjectInfo{}, fmt.Errorf("s3store: list %q: decoding key %q: %w", opts.Prefix, aws.ToString(obj.Key), err))
						return
					}
				}
				startAfter = aws.String(raw)
				key, ok := strings.CutPrefix(raw, s.prefix)
				if !ok || !strings.HasPrefix(key, opts.Prefix) || key <= opts.StartAfter {
					continue
				}
				if objstore.ValidateKey(key) != nil {
					continue // folder marker ("dir/") or a key Get could not read
				}
				info := objstore.ObjectInfo{
					Key:     key,
					Size:    aws.ToInt64(obj.Size),
					ETag:    etag(obj.ETag),
					ModTime: aws.ToTime(obj.LastModified),
				}
				if !yield(info, nil) {
					return
				}
			}
			if !aws.ToBool(out.IsTruncated) {
				return
			}
			if len(out.Contents) == 0 {
				yield(objstore.ObjectInfo{}, fmt.Errorf("s3store: list %q: truncated page without keys", opts.Prefix))
				return
			}
		}
	}
}

// etag returns an S3 ETag without its surrounding quotes, the form S3 event
// notifications carry, so a file seen by an event and by a listing has one
// ETag (allowOverwrites compares them).
func etag(s *string) string { return strings.Trim(aws.ToString(s), `"`) }

// ListLevel lists the level directly below prefix (which is "" or ends in
// '/'): the objects at that level and the sub-prefixes ("directories",
// ending in '/') below it, using S3's delimiter listing.
func (s *Store) ListLevel(ctx context.Context, prefix string) ([]objstore.ObjectInfo, []string, error) {
	var objs []objstore.ObjectInfo
	var prefixes []string
	var token *string
	for {
		out, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
			Bucket:            &s.bucket,
			Prefix:            aws.String(s.prefix + prefix),
			Delimiter:         aws.String("/"),
			ContinuationToken: token,
			MaxKeys:           aws.Int32(s.pageSize),
			EncodingType:      types.EncodingTypeUrl,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("s3store: list level %q: %w", prefix, err)
		}
		decode := func(raw string) (string, error) {
			if out.EncodingType == types.EncodingTypeUrl {
				return url.QueryUnescape(raw)
			}
			return raw, nil
		}
		for _, cp := range out.CommonPrefixes {
			raw, err := decode(aws.ToString(cp.Prefix))
			if err != nil {
				return nil, nil, fmt.Errorf("s3store: list level %q: decoding %q: %w", prefix, aws.ToString(cp.Prefix), err)
			}
			if p, ok := strings.CutPrefix(raw, s.prefix); ok {
				prefixes = append(prefixes, p)
			}
		}
		for _, obj := range out.Contents {
			raw, err := decode(aws.ToString(obj.Key))
			if err != nil {
				return nil, nil, fmt.Errorf("s3store: list level %q: decoding %q: %w", prefix, aws.ToString(obj.Key), err)
			}
			key, ok := strings.CutPrefix(raw, s.prefix)
			if !ok || objstore.ValidateKey(key) != nil {
				continue
			}
			objs = append(objs, objstore.ObjectInfo{Key: key, Size: aws.ToInt64(obj.Size), ETag: etag(obj.ETag), ModTime: aws.ToTime(obj.LastModified)})
		}
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil {
			return objs, prefixes, nil
		}
		token = out.NextContinuationToken
	}
}

// ParseURL splits an "s3://bucket/prefix" location into bucket and prefix.
// The prefix is taken literally (no percent-decoding) without leading or
// trailing slashes; it is "" for "s3://bucket" and "s3://bucket/".
func ParseURL(raw string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(raw, "s3://")
	if !ok {
		return "", "", fmt.Errorf("s3store: %q: want an s3://bucket/prefix URL", raw)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if err := validBucket(bucket); err != nil {
		return "", "", fmt.Errorf("s3store: %q: %w", raw, err)
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		if err := objstore.ValidateKey(prefix); err != nil {
			return "", "", fmt.Errorf("s3store: %q: prefix: %w", raw, err)
		}
	}
	return bucket, prefix, nil
}

// validBucket checks the S3 bucket naming rules that matter for parsing:
// 3-63 characters of lowercase letters, digits, '.' and '-', starting and
// ending with a letter or digit.
func validBucket(b string) error {
	if len(b) < 3 || len(b) > 63 {
		return fmt.Errorf("bucket name %q must be 3 to 63 characters", b)
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		alnum := 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
		if !alnum && c != '.' && c != '-' {
			return fmt.Errorf("bucket name %q has invalid character %q", b, c)
		}
		if !alnum && (i == 0 || i == len(b)-1) {
			return fmt.Errorf("bucket name %q must start and end with a letter or digit", b)
		}
	}
	return nil
}

// ListPrefixes implements objstore.PrefixLister with S3's delimiter
// listing, reading pages until maxEntries entries (objects and prefixes)
// have been read or the level ends.
func (s *Store) ListPrefixes(ctx context.Context, prefix string, maxEntries int) ([]string, error) {
	var prefixes []string
	var token *string
	entries := 0
	for {
		out, err := s.client.ListObjectsV2(ctx, &s3.ListObjectsV2Input{
			Bucket:            &s.bucket,
			Prefix:            aws.String(s.prefix + prefix),
			Delimiter:         aws.String("/"),
			ContinuationToken: token,
			MaxKeys:           aws.Int32(s.pageSize),
			EncodingType:      types.EncodingTypeUrl,
		})
		if err != nil {
			return nil, fmt.Errorf("s3store: list prefixes of %q: %w", prefix, err)
		}
		for _, cp := range out.CommonPrefixes {
			raw := aws.ToString(cp.Prefix)
			if out.EncodingType == types.EncodingTypeUrl {
				if raw, err = url.QueryUnescape(raw); err != nil {
					return nil, fmt.Errorf("s3store: list prefixes of %q: decoding %q: %w", prefix, aws.ToString(cp.Prefix), err)
				}
			}
			if p, ok := strings.CutPrefix(raw, s.prefix); ok {
				prefixes = append(prefixes, p)
			}
		}
		entries += len(out.CommonPrefixes) + len(out.Contents)
		if !aws.ToBool(out.IsTruncated) || out.NextContinuationToken == nil || (maxEntries > 0 && entries >= maxEntries) {
			return prefixes, nil
		}
		token = out.NextContinuationToken
	}
}
