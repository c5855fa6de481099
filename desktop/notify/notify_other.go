//go:build !unix || darwin

package notify

import "errors"

// Notifier is not available here: the app uses Fyne's notifications, which cannot be clicked.
type Notifier struct{}

// ErrUnavailable is returned by New where this package has no notification service.
var ErrUnavailable = errors.New("no clickable notifications on this system")

// New returns ErrUnavailable.
func New(app, icon string) (*Notifier, error) { return nil, ErrUnavailable }

// Show does nothing.
func (n *Notifier) Show(title, body string, onClick func()) (uint32, error) {
	return 0, ErrUnavailable
}

// Close does nothing.
func (n *Notifier) Close() {}
