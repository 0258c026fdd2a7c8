package fastmcp

import "context"

type promptEntry struct{ name string }
type resourceEntry struct{ uri string }
type templateEntry struct{ pattern string }

func (s *Server) listPrompts(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
func (s *Server) getPrompt(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
func (s *Server) listResources(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
func (s *Server) listTemplates(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
func (s *Server) readResource(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
func (s *Server) complete(ctx context.Context, r *Request, dst []byte) ([]byte, error) {
	return nil, ErrMethodNotFound
}
