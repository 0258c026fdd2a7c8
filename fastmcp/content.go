package fastmcp

import (
	"encoding/base64"
	"encoding/json"

	"github.com/fastmcp-go/fastmcp/decode"
)

// Content is one content block of a tool result or a prompt message: text, an image, audio,
// a link to a resource, or an embedded resource. Build it with [Text], [Image], [Audio],
// [ResourceLink] or [Embedded].
type Content struct {
	kind contentKind
	// text is the text, or the name of a resource link.
	text     string
	data     []byte // image or audio bytes, sent base64-encoded
	mimeType string
	uri      string
	resource *ResourceContents
	// Meta is an optional _meta object for the block.
	Meta json.RawMessage
}

type contentKind uint8

const (
	contentText contentKind = iota
	contentImage
	contentAudio
	contentResourceLink
	contentEmbedded
	contentRaw
)

// Text returns a text content block.
func Text(text string) Content { return Content{kind: contentText, text: text} }

// Image returns an image content block; data is the raw image, sent base64-encoded.
func Image(data []byte, mimeType string) Content {
	return Content{kind: contentImage, data: data, mimeType: mimeType}
}

// Audio returns an audio content block; data is the raw audio, sent base64-encoded.
func Audio(data []byte, mimeType string) Content {
	return Content{kind: contentAudio, data: data, mimeType: mimeType}
}

// ResourceLink returns a link to a resource the client may read.
func ResourceLink(uri, name, mimeType string) Content {
	return Content{kind: contentResourceLink, uri: uri, text: name, mimeType: mimeType}
}

// Embedded returns a content block that embeds a resource's contents.
func Embedded(rc ResourceContents) Content { return Content{kind: contentEmbedded, resource: &rc} }

// RawContent returns a content block sent exactly as block, which must be one JSON object
// (a content block as another server sent it: a gateway forwards its backends' blocks
// unchanged, annotations and types this package does not model included). The block is
// not checked here; Meta is ignored, as block carries its own _meta.
func RawContent(block json.RawMessage) Content { return Content{kind: contentRaw, data: block} }

// ResourceContents is the contents of a resource: text, or a binary blob sent
// base64-encoded.
type ResourceContents struct {
	URI      string
	MimeType string
	Text     string
	// Blob holds binary contents; when non-nil it is sent instead of Text.
	Blob []byte
	Meta json.RawMessage
}

func appendContent(dst []byte, c *Content) []byte {
	if c.kind == contentRaw {
		return append(dst, c.data...)
	}
	switch c.kind {
	case contentText:
		dst = appendTextMembers(dst, c.text)
	case contentImage, contentAudio:
		if c.kind == contentImage {
			dst = append(dst, `{"type":"image","data":"`...)
		} else {
			dst = append(dst, `{"type":"audio","data":"`...)
		}
		dst = base64.StdEncoding.AppendEncode(dst, c.data)
		dst = append(dst, `","mimeType":`...)
		dst = decode.AppendString(dst, c.mimeType, false)
	case contentResourceLink:
		dst = append(dst, `{"type":"resource_link","uri":`...)
		dst = decode.AppendString(dst, c.uri, false)
		dst = append(dst, `,"name":`...)
		dst = decode.AppendString(dst, c.text, false)
		if c.mimeType != "" {
			dst = append(dst, `,"mimeType":`...)
			dst = decode.AppendString(dst, c.mimeType, false)
		}
	case contentEmbedded:
		dst = append(dst, `{"type":"resource","resource":`...)
		dst = appendResourceContents(dst, c.resource)
	}
	if c.Meta != nil {
		dst = append(dst, `,"_meta":`...)
		dst = append(dst, c.Meta...)
	}
	return append(dst, '}')
}

// appendTextBlock appends a text content block without _meta.
func appendTextBlock(dst []byte, text string) []byte {
	return append(appendTextMembers(dst, text), '}')
}

// appendTextMembers appends a text block's opening brace and members.
func appendTextMembers(dst []byte, text string) []byte {
	dst = append(dst, `{"type":"text","text":`...)
	return decode.AppendString(dst, text, false)
}

func appendResourceContents(dst []byte, rc *ResourceContents) []byte {
	dst = append(dst, `{"uri":`...)
	dst = decode.AppendString(dst, rc.URI, false)
	if rc.MimeType != "" {
		dst = append(dst, `,"mimeType":`...)
		dst = decode.AppendString(dst, rc.MimeType, false)
	}
	if rc.Blob != nil {
		dst = append(dst, `,"blob":"`...)
		dst = base64.StdEncoding.AppendEncode(dst, rc.Blob)
		dst = append(dst, '"')
	} else {
		dst = append(dst, `,"text":`...)
		dst = decode.AppendString(dst, rc.Text, false)
	}
	if rc.Meta != nil {
		dst = append(dst, `,"_meta":`...)
		dst = append(dst, rc.Meta...)
	}
	return append(dst, '}')
}
