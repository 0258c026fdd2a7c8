package fastmcp

import "context"

func (s *Server) listen(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
