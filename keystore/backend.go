package keystore

import "github.com/zalando/go-keyring"

// osKeyring is the Backend over the operating system's keyring, through go-keyring.
type osKeyring struct{}

func (osKeyring) Get(service, user string) (string, error) {
	if err := checkSessionBus(); err != nil {
		return "", err
	}
	return keyring.Get(service, user)
}

func (osKeyring) Set(service, user, secret string) error {
	if err := checkSessionBus(); err != nil {
		return err
	}
	return keyring.Set(service, user, secret)
}

func (osKeyring) Delete(service, user string) error {
	if err := checkSessionBus(); err != nil {
		return err
	}
	return keyring.Delete(service, user)
}
